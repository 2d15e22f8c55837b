// Value transfers sent over JSON-RPC to a single-validator Kestrel + CometBFT network (`kestreld testnet`, the real
// CometBFT at .tools/bin/cometbft): the app process's CPU per mined tx (every thread, and the main thread alone)
// and tx/s. Ten senders, each sending its txs in bursts of --burst (default 8) in nonce order, the next burst once
// the last is answered (the node holds a nonce that arrives early and forwards it once the gap is filled). With
// --against, another checkout (a build of main) runs the same workload, the two alternating each round. Usage:
//   node --import tsx bench/cometSendCpu.ts [--against <checkout>] [--txs 1000] [--rounds 3] [--burst 8]
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { devAccounts, signLegacy } from './lib/tx.ts';
import { flagValue, runChild } from './lib/benchProcess.ts';
import { cpuMs } from './lib/procCpu.ts';
import { REPO_ROOT } from './nodes/paths.ts';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string): string => flagValue(args, name, dflt);

async function rpc(url: string, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function child(root: string, nTxs: number, burst: number): Promise<void> {
  const { CometNet, freePortBlock } = await import(join(root, 'test/helpers/cometbft.ts'));
  const net = CometNet.create({ validators: 1, basePort: await freePortBlock(1), args: ['--timeout-commit', '200ms'] });
  try {
    await net.startAll();
    const node = net.nodes[0]!;
    await node.waitHeight(2, 120_000);
    const pid: number = node.app!.pid!;
    const accounts = devAccounts(10);
    const perSender = Math.ceil(nTxs / accounts.length);
    const start = await Promise.all(
      accounts.map(async (a) => Number(BigInt(await rpc(node.eth, 'eth_getTransactionCount', [a.address, 'pending'])))),
    );
    const signed = accounts.map((a, k) =>
      Array.from({ length: perSender }, (_, i) => {
        const to = '0x' + (k * perSender + i + 1).toString(16).padStart(40, '0');
        return signLegacy(a, 9000n, { nonce: start[k]! + i, gas: 21_000n, to, value: 1n, data: '0x' }).raw;
      }),
    );
    const cpu0 = cpuMs(pid);
    const t0 = performance.now();
    await Promise.all(
      signed.map(async (txs) => {
        for (let i = 0; i < txs.length; i += burst) {
          await Promise.all(txs.slice(i, i + burst).map((raw) => rpc(node.eth, 'eth_sendRawTransaction', [raw])));
        }
      }),
    );
    for (;;) {
      const counts = await Promise.all(
        accounts.map(async (a) =>
          Number(BigInt(await rpc(node.eth, 'eth_getTransactionCount', [a.address, 'latest']))),
        ),
      );
      if (counts.every((c, k) => c >= start[k]! + perSender)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - t0) / 1000;
    const mined = perSender * accounts.length;
    const cpu1 = cpuMs(pid);
    const proc = cpu1.process - cpu0.process;
    const main = cpu1.main - cpu0.main;
    process.stdout.write(
      JSON.stringify({ mined, txPerS: mined / seconds, procUs: (proc * 1000) / mined, mainUs: (main * 1000) / mined }) +
        '\n',
    );
  } finally {
    await net.dispose();
  }
}

async function parent(): Promise<void> {
  const nTxs = Number(flag('--txs', '1000'));
  const burst = flag('--burst', '8');
  const rounds = Number(flag('--rounds', '3'));
  const against = args.includes('--against') ? resolve(flag('--against', '')) : undefined;
  const roots = [...(against ? [against] : []), REPO_ROOT];
  console.log(
    `${nTxs} value transfers per run, ${rounds} round(s); load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let r = 0; r < rounds; r++) {
    for (const root of roots) {
      const res = runChild<Record<string, number>>('bench/cometSendCpu.ts', root, [String(nTxs), burst]);
      console.log(
        `round ${r + 1} ${root}: ${res['txPerS']!.toFixed(0)} tx/s, mined ${res['mined']}, ` +
          `CPU ${res['procUs']!.toFixed(0)} us/tx (main thread ${res['mainUs']!.toFixed(0)}); load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
  }
}

if (args[0] === '--child') await child(args[1]!, Number(args[2]), Number(args[3]));
else await parent();
