// Process helpers shared by the testnet supervisor and `testnet stop`: pid files, liveness, signal-then-kill.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** True while a process with this pid exists (signal 0 probes without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when `pid` is alive and, where /proc exists, its command line mentions `needle` — so a stale pid file whose
 * pid the system has reused for an unrelated process is never signalled.
 */
export function isOurProcess(pid: number, needle: string): boolean {
  if (!isAlive(pid)) return false;
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync('/proc/self/cmdline')) return true;
  try {
    return readFileSync(cmdline, 'utf8')
      .split('\0')
      .some((arg) => arg.includes(needle));
  } catch {
    return false;
  }
}

/** Reads a pid file; undefined when absent or not a pid. */
export function readPid(path: string): number | undefined {
  if (!existsSync(path)) return undefined;
  const n = Number(readFileSync(path, 'utf8').trim());
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Writes a pid file. */
export function writePid(path: string, pid: number): void {
  writeFileSync(path, `${pid}\n`);
}

/** Removes a pid file if present. */
export function removePid(path: string): void {
  rmSync(path, { force: true });
}

/** Waits until `pid` is gone or `ms` elapse; true when it is gone. */
export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** SIGTERM, then SIGKILL when the process has not exited after `graceMs`; resolves once it is gone. */
export async function terminate(pid: number, graceMs: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await waitGone(pid, graceMs)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitGone(pid, 5_000);
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portAccepts(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((res) => {
    const sock = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      sock.destroy();
      res(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}
