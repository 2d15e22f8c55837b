// Scale: grows a dev chain's state (value transfers to fresh addresses, in real blocks, then hardhat_mine for the
// rest of the blocks) and at each quarter of the way prints the curve: value and ERC20 tx/s over JSON-RPC, node CPU
// per tx, eth_getBalance and eth_call rates, RSS, the caches' bytes and disk bytes per account; at the end, restart
// time. Runs archive and pruned homes one after the other (issue 27 target 6).
//   node --import tsx bench/scale.ts --accounts 50000 --blocks 2000 [--modes archive,pruned] [--budget-mb N]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { directoryBytes } from '../src/metrics/nodeMetrics.ts';
import { CHAIN_ID } from '../test/helpers/accounts.ts';
import { freePort, type KestrelNode, startNode } from '../test/helpers/node.ts';
import { balanceOfData, compileContracts, tokenConstructorArgs, transferData } from './lib/contracts.ts';
import { RpcClient } from './lib/rpc.ts';
import { devAccounts, signLegacy, type Account, type SignedTx } from './lib/tx.ts';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '50000' },
    blocks: { type: 'string', default: '2000' },
    modes: { type: 'string', default: 'archive,pruned' },
    'budget-mb': { type: 'string' },
    'measure-txs': { type: 'string', default: '1000' },
    'measure-reads': { type: 'string', default: '3000' },
  },
});
const ACCOUNTS = Number(values.accounts);
const BLOCKS = Number(values.blocks);
const MEASURE_TXS = Number(values['measure-txs']);
const MEASURE_READS = Number(values['measure-reads']);
if (!(ACCOUNTS >= 4) || !(BLOCKS >= 0)) throw new Error('--accounts must be >= 4 and --blocks >= 0');
const CHAIN = BigInt(CHAIN_ID);
const SENDERS = devAccounts(10);
const IN_FLIGHT = 32;
/** Growth transfers sent per round (the pool's global slots are 5,120). */
const GROWTH_ROUND = 2_000;
const BATCH = 100;

/** The i-th fresh account: distinct, never a sender. */
const fresh = (i: number): string => '0x5ca1e' + i.toString(16).padStart(35, '0');

/** Node process CPU seconds (user + system) from /proc. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

async function metric(at: string, re: RegExp): Promise<number> {
  const text = await (await fetch(`http://${at}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => re.test(l))
    .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Sends signed txs, `IN_FLIGHT` requests at a time (batches of `batch`), then waits until every sender's nonce is mined. */
async function sendAndMine(rpc: RpcClient, txs: SignedTx[], batch: number): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < txs.length) {
      const part = txs.slice(next, next + batch);
      next += batch;
      if (batch === 1) await rpc.call('eth_sendRawTransaction', [part[0]!.raw]);
      else {
        const body = part.map((t, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [t.raw] }));
        const res = (await (
          await fetch(rpc.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json()) as Array<{
          error?: unknown;
        }>;
        if (!Array.isArray(res)) throw new Error(`batch send answered ${JSON.stringify(res).slice(0, 300)}`);
        const bad = res.find((r) => r.error !== undefined);
        if (bad) throw new Error(`send failed: ${JSON.stringify(bad.error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const last = new Map<string, number>();
  for (const t of txs) last.set(t.from, Math.max(last.get(t.from) ?? 0, t.nonce));
  for (const [from, nonce] of last) {
    while (Number(BigInt(await rpc.call<string>('eth_getTransactionCount', [from, 'latest']))) <= nonce) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return (performance.now() - t0) / 1000;
}

/** Requests per second of `n` calls made by `IN_FLIGHT` concurrent clients. */
async function readRate(rpc: RpcClient, n: number, make: (i: number) => [string, unknown[]]): Promise<number> {
  let i = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (i < n) {
      const [m, p] = make(i++);
      await rpc.call(m, p);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return n / ((performance.now() - t0) / 1000);
}

interface Checkpoint {
  accounts: number;
  blocks: number;
  valueTps: number;
  erc20Tps: number;
  cpuUsPerValueTx: number;
  cpuUsPerErc20Tx: number;
  balanceRps: number;
  callRps: number;
  rssMiB: number;
  cacheMiB: number;
  diskBytesPerAccount: number;
}

async function runMode(mode: 'archive' | 'pruned'): Promise<{ points: Checkpoint[]; restartMs: number }> {
  const metricsAt = `127.0.0.1:${await freePort()}`;
  const args = ['--metrics.address', metricsAt];
  if (mode === 'pruned') args.push('--pruning', 'custom', '--pruning-keep-recent', '100', '--pruning-interval', '100');
  if (values['budget-mb'] !== undefined) args.push('--cache.budget-mb', values['budget-mb']);
  let node: KestrelNode = await startNode({ args });
  try {
    // hardhat_mine of hundreds of blocks runs the pruner's sweeps inside one call: allow it minutes.
    const rpc = new RpcClient(node.http, 300_000);
    const nonces = new Map<string, number>(SENDERS.map((a) => [a.address, 0]));
    const sign = (a: Account, to: string | null, data: string, gas: bigint, value = 0n): SignedTx => {
      const nonce = nonces.get(a.address)!;
      nonces.set(a.address, nonce + 1);
      return signLegacy(a, CHAIN, { nonce, gas, to, value, data });
    };
    const code =
      compileContracts().token +
      tokenConstructorArgs(
        SENDERS.map((a) => a.address),
        10n ** 24n,
      );
    const deploy = sign(SENDERS[0]!, null, code, 3_000_000n);
    await sendAndMine(rpc, [deploy], 1);
    const token = (await rpc.call<{ contractAddress: string }>('eth_getTransactionReceipt', [deploy.hash]))
      .contractAddress;
    const pid = node.proc.pid!;
    const points: Checkpoint[] = [];
    let grown = 0;
    for (let q = 1; q <= 4; q++) {
      // Grow: a quarter of the accounts, in rounds of value transfers to fresh addresses (each round fills blocks).
      const target = Math.round((ACCOUNTS * q) / 4);
      while (grown < target) {
        const n = Math.min(GROWTH_ROUND, target - grown);
        const txs = Array.from({ length: n }, (_, k) => sign(SENDERS[k % 10]!, fresh(grown + k), '0x', 21_000n, 1n));
        await sendAndMine(rpc, txs, BATCH);
        grown += n;
      }
      const head = Number(BigInt(await rpc.call<string>('eth_blockNumber')));
      const wantBlocks = Math.round((BLOCKS * q) / 4);
      if (head < wantBlocks) await rpc.call('hardhat_mine', ['0x' + (wantBlocks - head).toString(16)]);
      // Measure: value transfers to grown accounts, then ERC20 transfers, each tx its own request (32 in flight).
      const value = Array.from({ length: MEASURE_TXS }, (_, k) =>
        sign(SENDERS[k % 10]!, fresh((k * 7919) % grown), '0x', 21_000n, 1n),
      );
      let cpu0 = cpuSeconds(pid);
      const valueSeconds = await sendAndMine(rpc, value, 1);
      const cpuValue = cpuSeconds(pid) - cpu0;
      const erc20 = Array.from({ length: MEASURE_TXS }, (_, k) =>
        sign(SENDERS[k % 10]!, token, transferData(fresh((k * 104729) % grown), 1n), 100_000n),
      );
      cpu0 = cpuSeconds(pid);
      const erc20Seconds = await sendAndMine(rpc, erc20, 1);
      const cpuErc20 = cpuSeconds(pid) - cpu0;
      const balanceRps = await readRate(rpc, MEASURE_READS, (i) => [
        'eth_getBalance',
        [fresh((i * 2_654_435_761) % grown), 'latest'],
      ]);
      const callRps = await readRate(rpc, MEASURE_READS, (i) => [
        'eth_call',
        [{ to: token, data: balanceOfData(SENDERS[i % 10]!.address) }, 'latest'],
      ]);
      const disk = await directoryBytes(join(node.home, 'data'));
      const p: Checkpoint = {
        accounts: grown,
        blocks: Number(BigInt(await rpc.call<string>('eth_blockNumber'))),
        valueTps: MEASURE_TXS / valueSeconds,
        erc20Tps: MEASURE_TXS / erc20Seconds,
        cpuUsPerValueTx: (cpuValue / MEASURE_TXS) * 1e6,
        cpuUsPerErc20Tx: (cpuErc20 / MEASURE_TXS) * 1e6,
        balanceRps,
        callRps,
        rssMiB: rssMiB(pid),
        cacheMiB: (await metric(metricsAt, /^kestrel_cache_bytes\{/)) / 1048576,
        diskBytesPerAccount: disk / grown,
      };
      points.push(p);
      console.log(
        `scale ${mode}: ${JSON.stringify(p, (_k, v: unknown) => (typeof v === 'number' ? +v.toFixed(1) : v))}`,
      );
    }
    const t0 = performance.now();
    node = await node.restart();
    const restartMs = performance.now() - t0;
    console.log(`scale ${mode}: restart ${restartMs.toFixed(0)} ms`);
    return { points, restartMs };
  } finally {
    await node.dispose();
  }
}

const started = new Date().toISOString();
const out: string[] = [];
for (const mode of values.modes.split(',') as Array<'archive' | 'pruned'>) {
  const { points, restartMs } = await runMode(mode);
  out.push(
    `### ${mode}`,
    '',
    '| accounts | blocks | value tx/s | ERC20 tx/s | CPU µs/value tx | CPU µs/ERC20 tx | eth_getBalance/s | eth_call/s | RSS MiB | caches MiB | disk B/account |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...points.map(
      (p) =>
        `| ${p.accounts} | ${p.blocks} | ${p.valueTps.toFixed(0)} | ${p.erc20Tps.toFixed(0)} | ${p.cpuUsPerValueTx.toFixed(0)} | ` +
        `${p.cpuUsPerErc20Tx.toFixed(0)} | ${p.balanceRps.toFixed(0)} | ${p.callRps.toFixed(0)} | ${p.rssMiB.toFixed(0)} | ` +
        `${p.cacheMiB.toFixed(1)} | ${p.diskBytesPerAccount.toFixed(0)} |`,
    ),
    '',
    `Restart (SIGTERM, start, first eth_blockNumber answered): ${restartMs.toFixed(0)} ms.`,
    '',
  );
}
console.log(
  `# Scale, ${started} (load average at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})\n`,
);
console.log(out.join('\n'));
