// Sender recovery of one block's worth of signatures (500 by default) through SenderRecovery with 0, 1, 2 and 4
// worker threads, with and without the main thread's share ("1w": the workers alone): the wall time from the
// first recover() call to the last key, each configuration's batches interleaved with the others', and the
// main thread's CPU per batch. The fastest batch shows what the cores give when the machine lets them run; the
// median what a loaded machine gives.
//   node --import tsx bench/recoveryBatch.ts [--txs 500] [--batches 60] [--workers 0,1,1w,2,2w,4]
import { prepareTx } from '../src/app/evm/validate.ts';
import { testRules } from '../src/app/evm/validate.testing.ts';
import { SenderRecovery } from '../src/mempool/recovery/workers.ts';
import { loadavg } from 'node:os';
import { flagValue } from './lib/benchProcess.ts';
import { cpuMs } from './lib/procCpu.ts';
import { devAccounts, signLegacy } from './lib/tx.ts';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string): string => flagValue(args, name, dflt);
const nTxs = Number(flag('--txs', '500'));
const batches = Number(flag('--batches', '60'));
const specs = flag('--workers', '0,1,1w,2,2w,4').split(',');

const rules = testRules({ baseFee: 0n });
const accounts = devAccounts(10);
const jobs = Array.from({ length: nTxs }, (_, i) => {
  const to = '0x' + (i + 1).toString(16).padStart(40, '0');
  const s = signLegacy(accounts[i % 10]!, 9000n, {
    nonce: Math.floor(i / 10),
    gas: 21_000n,
    to,
    value: 1n,
    data: '0x',
  });
  return prepareTx(Uint8Array.from(Buffer.from(s.raw.slice(2), 'hex')), rules).job;
});

/** The main thread's user + system CPU in ms (100 Hz ticks: summed over many batches). */
const mainCpuMs = (): number => cpuMs(process.pid).main;

const pools = new Map<string, SenderRecovery>();
for (const spec of specs) {
  const workers = parseInt(spec, 10);
  const pool = new SenderRecovery({ workers, minBatch: 1, mainShareFrom: spec.endsWith('w') ? Infinity : undefined });
  await pool.start();
  pools.set(spec, pool);
}
const wall = new Map<string, number[]>(specs.map((s) => [s, []]));
const cpu = new Map<string, number>(specs.map((s) => [s, 0]));
const main = new Map<string, number>(specs.map((s) => [s, 0]));
console.log(
  `${nTxs} signatures per batch, ${batches} batches per configuration; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (let b = 0; b < batches + 3; b++) {
  for (const spec of specs) {
    const pool = pools.get(spec)!;
    const m0 = mainCpuMs();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(jobs.map((j) => pool.recover(j)));
    const t1 = performance.now();
    const c = process.cpuUsage(c0);
    const m = mainCpuMs() - m0;
    if (b < 3) continue; // warm-up
    wall.get(spec)!.push(t1 - t0);
    cpu.set(spec, cpu.get(spec)! + c.user + c.system);
    main.set(spec, main.get(spec)! + m);
  }
}
for (const p of pools.values()) await p.close();
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
console.log(
  '\n| workers | wall ms, fastest | wall ms, median | main-thread CPU ms per batch | process CPU ms per batch |',
);
console.log('|---|---|---|---|---|');
for (const spec of specs) {
  const w = sorted(wall.get(spec)!);
  const name = spec.endsWith('w') ? `${parseInt(spec, 10)}, no main share` : spec;
  console.log(
    `| ${name} | ${w[0]!.toFixed(1)} | ${w[Math.floor(w.length / 2)]!.toFixed(1)} | ` +
      `${(main.get(spec)! / batches).toFixed(1)} | ${(cpu.get(spec)! / 1000 / batches).toFixed(1)} |`,
  );
}
console.log(
  `load after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
