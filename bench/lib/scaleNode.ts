// The nodes of bench/scale.ts: `kestreld start --dev` on a home, its whole output kept in a log file, its start timed
// to the first answered eth_blockNumber and its stop from SIGTERM to exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { kestrelStart } from '../nodes/kestrel.ts';
import { REPO_ROOT } from '../nodes/paths.ts';
import { cpuMs, freePort } from '../nodes/process.ts';
import { RpcClient } from './rpc.ts';

/** A node of this bench: its process, URLs and log file; stop() resolves to the ms from SIGTERM to its exit. */
export interface ScaleNode {
  proc: ChildProcess;
  pid: number;
  url: string;
  metricsAt: string;
  log: string;
  /** Spawn to the first answered eth_blockNumber (polled every 5 ms), wall ms and the process's CPU ms by then. */
  startMs: number;
  startCpuMs: number;
  stop(): Promise<number>;
}

const STARTUP_TIMEOUT_MS = 120_000;
/** A loaded node may take long to stop (it finishes its block and closes the store); past this it is killed. */
const STOP_TIMEOUT_MS = 120_000;
let launches = 0;

/** Starts `kestreld start --dev` on `home` (with `checkout`'s build), its output appended whole to a file in `logDir`. */
export async function launchScaleNode(
  logDir: string,
  mode: string,
  home: string,
  extra: string[],
  checkout = REPO_ROOT,
): Promise<ScaleNode> {
  const metricsAt = `127.0.0.1:${await freePort()}`;
  const { url, args } = await kestrelStart('bin/kestreld.js', home, ['--metrics.address', metricsAt, ...extra]);
  const log = join(logDir, `${mode}-${++launches}.log`);
  const fd = openSync(log, 'a');
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { cwd: checkout, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exitedCode: number | null | undefined;
  const exited = new Promise<void>((res) =>
    proc.on('exit', (code) => {
      exitedCode = code;
      res();
    }),
  );
  process.on('exit', () => proc.kill('SIGKILL'));
  const stop = async (): Promise<number> => {
    const s0 = performance.now();
    if (exitedCode === undefined) {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    return performance.now() - s0;
  };
  const probe = new RpcClient(url, 1_000, 1);
  try {
    while (true) {
      if (exitedCode !== undefined) throw new Error(`kestreld exited at start (code ${exitedCode}); log ${log}`);
      try {
        await probe.call('eth_blockNumber');
        break;
      } catch {
        /* not listening yet */
      }
      if (performance.now() - t0 > STARTUP_TIMEOUT_MS) throw new Error(`kestreld did not answer; log ${log}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } catch (e) {
    await stop();
    throw e;
  } finally {
    probe.close();
  }
  const startMs = performance.now() - t0;
  return { proc, pid: proc.pid!, url, metricsAt, log, startMs, startCpuMs: cpuMs(proc.pid!), stop };
}
