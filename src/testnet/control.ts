// `kestreld testnet start|stop DIR`: launches the supervisor in the background and waits for every validator's
// CometBFT RPC, or stops the supervisor (and, if it died, the processes its pid files name) by pid.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { nodeFiles, readManifest, supervisorFiles, type Manifest } from './manifest.ts';
import { isOurProcess, readPid, removePid, terminate, waitGone } from './processes.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The running supervisor's pid, or undefined. */
export function runningSupervisor(dir: string): number | undefined {
  const pid = readPid(supervisorFiles(dir).pid);
  return pid !== undefined && isOurProcess(pid, resolve(dir)) ? pid : undefined;
}

/** CometBFT `status` of one node: its latest height, or undefined while it does not answer. */
export async function cometHeight(rpcPort: number): Promise<number | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${rpcPort}/status`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json()) as { result?: { sync_info?: { latest_block_height?: string } } };
    const h = body.result?.sync_info?.latest_block_height;
    return h === undefined ? undefined : Number(h);
  } catch {
    return undefined;
  }
}

/** Starts the supervisor detached and waits (up to `waitMs`) until every node has made a block. */
export async function startTestnet(dir: string, waitMs: number, say: (l: string) => void): Promise<Manifest> {
  dir = resolve(dir);
  const manifest = readManifest(dir);
  const running = runningSupervisor(dir);
  if (running !== undefined)
    throw new Error(`the testnet in ${dir} is already running (supervisor pid ${running}); stop it first`);
  const log = openSync(supervisorFiles(dir).log, 'a');
  const child = spawn(manifest.programs.node, [manifest.programs.kestreld, 'testnet', 'start', dir, '--foreground'], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.unref();
  say(`supervisor pid ${child.pid}; logs in ${dir}/<node>/{app,cometbft}.log and ${supervisorFiles(dir).log}`);
  const deadline = Date.now() + waitMs;
  const pending = new Set(manifest.nodes.map((n) => n.name));
  while (pending.size > 0) {
    if (child.exitCode !== null)
      throw new Error(`the supervisor exited (code ${child.exitCode}); see ${supervisorFiles(dir).log}`);
    for (const n of manifest.nodes) {
      if (!pending.has(n.name)) continue;
      const h = await cometHeight(n.ports.rpc);
      if (h !== undefined && h > 0) {
        pending.delete(n.name);
        say(
          `${n.name}: height ${h}; eth http://127.0.0.1:${n.ports.ethHttp}, cometbft rpc http://127.0.0.1:${n.ports.rpc}`,
        );
      }
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      throw new Error(
        `no block yet from ${[...pending].join(', ')} after ${waitMs} ms (the supervisor keeps trying); see their logs in ${dir}`,
      );
    }
    await sleep(500);
  }
  return manifest;
}

/** Stops the supervisor (which stops every pair); kills pairs left behind by a supervisor that died. */
export async function stopTestnet(dir: string, say: (l: string) => void): Promise<void> {
  dir = resolve(dir);
  const manifest = readManifest(dir);
  const sup = runningSupervisor(dir);
  if (sup !== undefined) {
    say(`stopping supervisor pid ${sup}`);
    process.kill(sup, 'SIGTERM');
    if (!(await waitGone(sup, 60_000))) {
      say(`supervisor pid ${sup} did not exit within 60 s: killing it`);
      process.kill(sup, 'SIGKILL');
      await waitGone(sup, 5_000);
    }
  }
  removePid(supervisorFiles(dir).pid);
  // A supervisor killed with SIGKILL leaves its children running; their pid files name them.
  for (const n of manifest.nodes) {
    const f = nodeFiles(dir, n);
    for (const [path, needle] of [
      [f.appPid, f.appHome],
      [f.cometPid, f.cometHome],
    ] as const) {
      const pid = readPid(path);
      if (pid !== undefined && isOurProcess(pid, needle)) {
        say(`${n.name}: stopping leftover pid ${pid}`);
        await terminate(pid, 10_000);
      }
      removePid(path);
    }
  }
  if (sup === undefined) say(`no supervisor was running for ${dir}`);
}
