// Kestrel: `kestreld start --dev` on a fresh temporary home (created by --dev on first start), instant sealing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.ts';
import { freePorts, spawnNode } from './process.ts';
import type { RunningNode } from './types.ts';

/** Starts Kestrel; the eth_getLogs caps are lifted because the peers have none and the logs workload needs 20k. */
export async function startKestrel(): Promise<RunningNode> {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-bench-'));
  const [http, ws, grpc, comet] = (await freePorts(4)) as [number, number, number, number];
  const url = `http://127.0.0.1:${http}`;
  const args = [
    'bin/kestreld.js', 'start', '--dev', '--home', join(base, 'home'),
    '--json-rpc.address', `127.0.0.1:${http}`,
    '--json-rpc.ws-address', `127.0.0.1:${ws}`,
    '--grpc.address', `127.0.0.1:${grpc}`,
    '--rpc.laddr', `tcp://127.0.0.1:${comet}`,
    '--json-rpc.logs-cap', '0',
    '--json-rpc.block-range-cap', '0',
  ];
  try {
    const s = await spawnNode('kestrel', process.execPath, args, url, { cwd: REPO_ROOT });
    return {
      name: 'kestrel',
      url,
      pid: s.pid,
      startupMs: s.startupMs,
      mineUnsupportedReason: 'Kestrel has no RPC that seals empty blocks (no evm_mine/anvil_mine)',
      logTail: s.logTail,
      async stop() {
        await s.stop();
        rmSync(base, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(base, { recursive: true, force: true });
    throw e;
  }
}
