// CPU time of a process and of its threads from Linux's /proc, for the benches that report CPU per unit of work.
import { readFileSync } from 'node:fs';

/** User + system CPU time in ms of a /proc stat file (clock ticks at Linux's usual 100 Hz). */
export function statCpuMs(path: string): number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time of the whole process `pid` (every thread: libuv's pool, V8's GC and compiler threads, worker threads) and
 * of its main thread alone (the thread whose id is the pid), in ms: the main thread is what bounds a node's rate.
 */
export function cpuMs(pid: number): { process: number; main: number } {
  return { process: statCpuMs(`/proc/${pid}/stat`), main: statCpuMs(`/proc/${pid}/task/${pid}/stat`) };
}

/** CPU microseconds of the calling process so far (user + system, every thread). */
export function processCpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}
