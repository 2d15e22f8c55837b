// Kestrel: `kestreld start --dev` on a temporary home (created by --dev on the first start, then started again, as
// a user's later starts are), instant sealing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcClient } from '../lib/rpc.ts';
import { REPO_ROOT } from './paths.ts';
import { freePorts, spawnNode, type Spawned } from './process.ts';
import type { RunningNode } from './types.ts';

/** Block interval of the padding run: the engine then seals an empty block on every tick it is free for. */
const PAD_BLOCK_TIME = '1ms';
/** Bound on one padding run (a stalled node must not hang the bench; the logs workload has its own deadline). */
const PAD_TIMEOUT_MS = 120_000;

/** The argv of `<launcher> start --dev` on `home` with every listener on a free port, and its HTTP URL. */
export async function kestrelStart(
  launcher: string,
  home: string,
  extra: string[] = [],
): Promise<{ url: string; args: string[] }> {
  const [http, ws, grpc, comet] = (await freePorts(4)) as [number, number, number, number];
  const listeners = [
    ['--json-rpc.address', `127.0.0.1:${http}`],
    ['--json-rpc.ws-address', `127.0.0.1:${ws}`],
    ['--grpc.address', `127.0.0.1:${grpc}`],
    ['--rpc.laddr', `tcp://127.0.0.1:${comet}`],
  ].flat();
  return {
    url: `http://127.0.0.1:${http}`,
    args: [launcher, 'start', '--dev', '--home', home, ...listeners, ...extra],
  };
}

/** Starts Kestrel; the eth_getLogs caps are lifted because the peers have none and the logs workload needs 20k. */
export async function startKestrel(): Promise<RunningNode> {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-bench-'));
  const { url, args } = await kestrelStart('bin/kestreld.js', join(base, 'home'), [
    '--json-rpc.logs-cap',
    '0',
    '--json-rpc.block-range-cap',
    '0',
  ]);
  const spawnKestrel = (extra: string[] = []) =>
    spawnNode('kestrel', process.execPath, [...args, ...extra], url, { cwd: REPO_ROOT });
  // The first start creates the home (keys, genesis, the first block); the target is for a start on an
  // existing home, so the bench measures both and keeps the second process.
  let s: Spawned;
  let freshStartupMs: number;
  try {
    const fresh = await spawnKestrel();
    freshStartupMs = fresh.startupMs;
    await fresh.stop();
    s = await spawnKestrel();
  } catch (e) {
    rmSync(base, { recursive: true, force: true });
    throw e;
  }
  return {
    name: 'kestrel',
    url,
    get pid() {
      return s.pid;
    },
    startupMs: s.startupMs,
    freshStartupMs,
    // Kestrel has no RPC that seals empty blocks (no evm_mine/anvil_mine). Its own way is interval sealing, which
    // seals a block on every tick, empty or not: restart the same home with a 1 ms block time until the chain is
    // `n` blocks longer, then restart it as it was. The chain (an archive) is kept across restarts.
    async mineEmpty(n: number) {
      const client = new RpcClient(url, 5_000, 1);
      try {
        const target = BigInt(await client.call<string>('eth_blockNumber')) + BigInt(n);
        await s.stop();
        s = await spawnKestrel(['--block-time', PAD_BLOCK_TIME]);
        const t0 = performance.now();
        while (BigInt(await client.call<string>('eth_blockNumber')) < target) {
          if (performance.now() - t0 > PAD_TIMEOUT_MS)
            throw new Error(`padding did not reach block ${target} within ${PAD_TIMEOUT_MS / 1000} s`);
          await new Promise((r) => setTimeout(r, 20));
        }
        await s.stop();
        s = await spawnKestrel();
      } finally {
        client.close();
      }
    },
    logTail: () => s.logTail(),
    async stop() {
      await s.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
