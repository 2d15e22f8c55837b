// Figures for filters and subscriptions (not part of `npm test`): node RSS growth for 200 polling filters and
// 1000 WebSocket subscriptions, and newHeads notifications per second delivered to 100 subscribers.
//   node --import tsx test/bench/subscriptions-figures.ts [blockTime=10ms] [seconds=10]
import { readFileSync } from 'node:fs';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { rpcResult, sleep, startNode } from '../helpers/node.ts';
import { WsRpc } from '../helpers/ws.ts';

const blockTime = process.argv[2] ?? '10ms';
const seconds = Number(process.argv[3] ?? 10);

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

async function main(): Promise<void> {
  const node = await startNode({ args: ['--block-time', '1h', '--json-rpc.filter-cap', '200'] });
  const pid = node.proc.pid!;
  try {
    await sleep(1000);
    const r0 = rssKiB(pid);
    const ids = [];
    for (let i = 0; i < 200; i++) {
      ids.push(
        await rpcResult(node.http, 'eth_newFilter', [
          { address: DEV_ACCOUNTS[i % 10]!.address, topics: [null, '0x' + i.toString(16).padStart(64, '0')] },
        ]),
      );
    }
    await sleep(500);
    const r1 = rssKiB(pid);
    console.log(`200 polling filters: node RSS +${r1 - r0} KiB (${r0} → ${r1} KiB)`);
    const conns: WsRpc[] = [];
    for (let c = 0; c < 10; c++) conns.push(await WsRpc.connect(node.ws));
    await sleep(500);
    const r2 = rssKiB(pid);
    const kinds: unknown[][] = [
      ['newHeads'],
      ['logs', { address: DEV_ACCOUNTS[0]!.address }],
      ['newPendingTransactions'],
    ];
    for (let i = 0; i < 1000; i++) await conns[i % 10]!.result('eth_subscribe', kinds[i % 3]!);
    await sleep(500);
    const r3 = rssKiB(pid);
    console.log(`1000 subscriptions on 10 connections: node RSS +${r3 - r2} KiB (connections alone: +${r2 - r1} KiB)`);
    for (const c of conns) await c.close();
  } finally {
    await node.dispose();
  }

  const fast = await startNode({ args: ['--block-time', blockTime] });
  try {
    const subs: WsRpc[] = [];
    const counts: number[] = [];
    for (let i = 0; i < 100; i++) {
      const ws = await WsRpc.connect(fast.ws);
      await ws.result('eth_subscribe', ['newHeads']);
      subs.push(ws);
      counts.push(0);
    }
    let stop = false;
    const pumps = subs.map(async (ws, i) => {
      while (!stop) {
        try {
          await ws.nextUnmatched(200);
          counts[i]!++;
        } catch {
          /* timeout: poll again */
        }
      }
    });
    await sleep(1000);
    counts.fill(0);
    const h0 = BigInt(await rpcResult<string>(fast.http, 'eth_blockNumber'));
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const h1 = BigInt(await rpcResult<string>(fast.http, 'eth_blockNumber'));
    const dt = (performance.now() - t0) / 1000;
    const total = counts.reduce((a, b) => a + b, 0);
    const blocks = Number(h1 - h0);
    console.log(
      `newHeads to 100 subscribers (--block-time ${blockTime}): ${blocks} blocks in ${dt.toFixed(1)} s (${(blocks / dt).toFixed(0)} blocks/s), ` +
        `${total} notifications received = ${(total / dt).toFixed(0)} events/s; per subscriber min ${Math.min(...counts)} max ${Math.max(...counts)}`,
    );
    stop = true;
    await Promise.all(pumps);
    for (const s of subs) await s.close();
  } finally {
    await fast.dispose();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
