// Spawning a node process, timing its startup to the first answered eth_blockNumber, reading its RSS, and
// stopping it by its own PID only.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { statCpuMs } from '../lib/procCpu.ts';
import { RpcClient, sleep } from '../lib/rpc.ts';
import type { NodeName, RunningNode } from './types.ts';

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const LOG_CAP = 20_000;

// Children of this bench process, killed if the bench itself exits or is interrupted.
const children = new Set<ChildProcess>();
const killChildren = () => {
  for (const c of children) c.kill('SIGKILL');
};
process.on('exit', killChildren);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killChildren();
    process.exit(sig === 'SIGINT' ? 130 : 143);
  });
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') return reject(new Error('no port'));
      srv.close(() => resolve(addr.port));
    });
  });
}

/** `n` distinct free ports. */
export async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = await freePort();
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** A spawned node process with its startup time measured. */
export interface Spawned {
  proc: ChildProcess;
  pid: number;
  startupMs: number;
  /** CPU time (user + system) the process had used when it first answered: what a busy machine does not distort. */
  startupCpuMs: number;
  logTail(): string;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
}

/** Spawns `cmd args` and waits (bounded) until `url` answers eth_blockNumber; kills it on failure. */
export async function spawnNode(
  label: string,
  cmd: string,
  args: string[],
  url: string,
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; group?: boolean } = {},
): Promise<Spawned> {
  const t0 = performance.now();
  // A wrapper (npm, npx) runs the node as a grandchild: with `group` the whole process group is signalled and the
  // CPU figure sums the process tree, so the wrapper's own cost is counted and nothing outlives the stop.
  const proc = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.group === true,
  });
  const signal = (sig: NodeJS.Signals) => {
    if (opts.group === true && proc.pid !== undefined) {
      try {
        process.kill(-proc.pid, sig);
        return;
      } catch {
        /* group already gone: fall back to the child itself */
      }
    }
    proc.kill(sig);
  };
  children.add(proc);
  let log = '';
  const append = (d: Buffer) => {
    log += d.toString('utf8');
    if (log.length > LOG_CAP) log = log.slice(-LOG_CAP);
  };
  proc.stdout!.on('data', append);
  proc.stderr!.on('data', append);
  let exited = false;
  const exitP = new Promise<void>((resolve) =>
    proc.on('exit', () => {
      exited = true;
      children.delete(proc);
      resolve();
    }),
  );
  proc.on('error', (e) => (log += `\n[spawn error] ${e.message}`));
  const stop = async () => {
    if (exited) return;
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
    await exitP;
    clearTimeout(timer);
  };
  const client = new RpcClient(url, 1_000, 1);
  try {
    while (true) {
      if (exited) throw new Error(`${label} exited during startup:\n${log.slice(-2000)}`);
      try {
        await client.call('eth_blockNumber');
        break;
      } catch {
        /* not listening yet */
      }
      if (performance.now() - t0 > STARTUP_TIMEOUT_MS)
        throw new Error(
          `${label} did not answer eth_blockNumber within ${STARTUP_TIMEOUT_MS} ms:\n${log.slice(-2000)}`,
        );
      await sleep(5);
    }
  } catch (e) {
    client.close();
    await stop();
    throw e;
  }
  client.close();
  const startupMs = performance.now() - t0;
  const startupCpuMs = opts.group === true ? treeCpuMs(proc.pid!) : cpuMs(proc.pid!);
  return { proc, pid: proc.pid!, startupMs, startupCpuMs, logTail: () => log.slice(-4000), stop };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time of a process and its live descendants (ms); exited children count through their parent's cutime. */
export function treeCpuMs(root: number): number {
  const stats = new Map<number, { ppid: number; ms: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime, stime, cutime, cstime: waited-for children (npm's shell) are included via the last two.
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      stats.set(Number(d), { ppid: Number(f[1]), ms: (ticks * 1000) / 100 });
    } catch {
      /* exited while listing */
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += stats.get(pid)?.ms ?? 0;
    for (const [child, s] of stats) if (s.ppid === pid) stack.push(child);
  }
  return total;
}

/** Resident set size of a process in MiB, from /proc/<pid>/status (VmRSS). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/**
 * A peer node (Anvil, Hardhat, Ganache) served by a spawned process: `mine(n)` is its own RPC call that seals n
 * empty blocks; `cleanup` removes what the bench created for it, after the process is gone.
 */
export function peerNode(
  name: NodeName,
  url: string,
  s: Spawned,
  client: RpcClient,
  mine: (n: number) => [method: string, params: unknown[]],
  cleanup?: () => void,
): RunningNode {
  return {
    name,
    url,
    pid: s.pid,
    startupMs: s.startupMs,
    mineEmpty: async (n) => {
      await client.call(...mine(n));
    },
    logTail: s.logTail,
    async stop() {
      client.close();
      await s.stop();
      cleanup?.();
    },
  };
}
