// A write workload (`npm run bench`'s write.*: same presigned txs, same sendAll; KIND picks it, default
// write.erc20.inflight, the ERC20 transfers with 32 in flight) against one or more launchers, reporting beside tx/s the node process's CPU time per mined tx and the
// number of blocks it took (process CPU, every thread, and the main thread's alone): the figures a busy machine distorts least. With several launchers (e.g. another
// checkout's bin/kestreld.js) the runs alternate. Usage:
//   [KIND=write.transfer.awaited] N=3000 ROUNDS=3 node --import tsx bench/sendCpu.ts [--prof] <launcher> [launcher ...]
// Issue 27's target 2 as it is worded (16 senders, 32 in flight, a receipt polled once per 500):
//   SENDERS=16 KIND=write.transfer.batched N=20000 node --import tsx bench/sendCpu.ts --threads bin/kestreld.js
// A launcher may carry extra kestreld flags after a '+', e.g. `bin/kestreld.js+--mempool.journal-fsync=false`.
// --prof starts each node under `node --cpu-prof` (profiles in $PROF_DIR, default <tmpdir>/kestrel-sendcpu-prof;
// $PROF_INTERVAL_US sets the sampling interval, default node's 1,000 µs). --threads adds each thread's CPU per mined tx.
// KESTREL_NODE_FLAGS passes Node/V8 flags to the node process (e.g. `--single-threaded-gc`, to see the collector's
// share on the main thread). Each run ends with the node's RSS.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileContracts, tokenConstructorArgs } from './lib/contracts.ts';
import { cpuMs, statCpuMs } from './lib/procCpu.ts';
import { RpcClient } from './lib/rpc.ts';
import { devAccounts } from './lib/tx.ts';
import { kestrelStart } from './nodes/kestrel.ts';
import { REPO_ROOT } from './nodes/paths.ts';
import { startHardhat } from './nodes/hardhat.ts';
import { startAnvil } from './nodes/anvil.ts';
import { rssMiB, spawnNode, type Spawned } from './nodes/process.ts';
import type { RunningNode } from './nodes/types.ts';
import { deploy, type Chain } from './workloads/chain.ts';
import { sendAll } from './workloads/send.ts';
import { fundSenders, WRITE_KINDS, writeTxs } from './workloads/writes.ts';

const launchers = process.argv.slice(2).filter((a) => !a.startsWith('-'));
if (launchers.length === 0) throw new Error('usage: bench/sendCpu.ts [--prof] <launcher> [launcher ...]');
const prof = process.argv.includes('--prof');
const perThread = process.argv.includes('--threads');
const profDir = process.env.PROF_DIR ?? join(tmpdir(), 'kestrel-sendcpu-prof');
const total = Number(process.env.N ?? 2000);
const rounds = Number(process.env.ROUNDS ?? 1);
if (!Number.isInteger(total) || total < 1 || !Number.isInteger(rounds) || rounds < 1)
  throw new Error('N and ROUNDS must be positive integers');
const kindId = process.env.KIND ?? 'write.erc20.inflight';
const kind = WRITE_KINDS.find((k) => k.id === kindId);
if (!kind) throw new Error(`KIND must be one of ${WRITE_KINDS.map((k) => k.id).join(', ')}`);

/** Each thread's CPU time in ms, by thread id (threads that ended since are absent). */
function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), statCpuMs(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** The busiest threads' CPU per mined tx between two samples, e.g. `main 310, t+5 120 ...` (t+k: the k-th thread id after the pid). */
function threadsLine(pid: number, a: Map<number, number>, b: Map<number, number>, mined: number): string {
  return [...b]
    .map(([tid, ms]) => [tid, ms - (a.get(tid) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([tid, ms]) => `${tid === pid ? 'main' : `t+${tid - pid}`} ${((ms * 1000) / Math.max(mined, 1)).toFixed(0)}`)
    .join(', ');
}

/** A fresh peer as the bench starts it. */
async function startPeer(starting: Promise<RunningNode>): Promise<{ url: string; s: Pick<Spawned, 'pid' | 'stop'> }> {
  const node = await starting;
  return { url: node.url, s: node };
}

/** A kestreld from `launcher` on a fresh home under `base`, under --cpu-prof when asked. */
async function startKestrel(launcher: string, base: string, flags: string[]): Promise<{ url: string; s: Spawned }> {
  const { url, args } = await kestrelStart(launcher, join(base, 'home'), flags);
  const interval = process.env.PROF_INTERVAL_US ? [`--cpu-prof-interval=${process.env.PROF_INTERVAL_US}`] : [];
  // KESTREL_NODE_FLAGS: Node/V8 flags for the node process (e.g. collector settings to try), space-separated.
  const extra = (process.env.KESTREL_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const nodeArgs = [...extra, ...(prof ? ['--cpu-prof', '--cpu-prof-dir', profDir, ...interval] : [])];
  return { url, s: await spawnNode('kestrel', process.execPath, [...nodeArgs, ...args], url, { cwd: REPO_ROOT }) };
}

const code = compileContracts();
// SENDERS=32 KIND=write.erc20.awaited is `npm run bench`'s write group (32 senders, each awaiting its receipt).
const senders = devAccounts(Number(process.env.SENDERS ?? 10));
for (let r = 0; r < rounds; r++) {
  for (const spec of launchers) {
    const [launcher, ...flags] = spec.split('+') as [string, ...string[]];
    const base = mkdtempSync(join(tmpdir(), 'kestrel-sendcpu-'));
    const { url, s } =
      launcher === 'anvil'
        ? await startPeer(startAnvil(flags))
        : launcher === 'hardhat'
          ? await startPeer(startHardhat())
          : await startKestrel(launcher, base, flags);
    const client = new RpcClient(url, 60_000, 8);
    try {
      const node = { name: 'kestrel', url } as RunningNode;
      const chain: Chain = { node, client, chainId: BigInt(await client.call<string>('eth_chainId')) };
      await fundSenders(chain, senders[0]!, senders);
      const holders = senders.map((a) => a.address);
      const token = await deploy(chain, senders[0]!, code.token + tokenConstructorArgs(holders, 10n ** 30n));
      const txs = await writeTxs(chain, kind, senders, total, token);
      const blocks0 = Number(await client.call<string>('eth_blockNumber'));
      const cpu0 = cpuMs(s.pid);
      const threads0 = perThread ? threadCpuMs(s.pid) : undefined;
      const o = await sendAll(url, txs, {
        mode: kind.mode,
        inflight: 32,
        stallMs: 15_000,
        maxMs: 60_000,
        requestTimeoutMs: 10_000,
      });
      const cpu1 = cpuMs(s.pid);
      const threads1 = perThread ? threadCpuMs(s.pid) : undefined;
      const perTx = (ms: number) => ((ms * 1000) / Math.max(o.mined, 1)).toFixed(0);
      const blocks = Number(await client.call<string>('eth_blockNumber')) - blocks0;
      console.log(
        `${spec}: ${(o.mined / o.seconds).toFixed(0)} tx/s, mined ${o.mined}/${o.total} (rejected ${o.rejected}), ` +
          `CPU ${perTx(cpu1.process - cpu0.process)} us/tx (main thread ${perTx(cpu1.main - cpu0.main)}), ${blocks} blocks, ` +
          `${(o.receiptPolls / Math.max(o.mined, 1)).toFixed(1)} receipt polls/tx, RSS ${rssMiB(s.pid).toFixed(0)} MiB, ` +
          `load ${loadavg()[0]!.toFixed(2)}`,
      );
      if (threads0 && threads1) console.log(`  per thread (us/tx): ${threadsLine(s.pid, threads0, threads1, o.mined)}`);
    } finally {
      client.close();
      await s.stop();
      rmSync(base, { recursive: true, force: true });
    }
  }
}
