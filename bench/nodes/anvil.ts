// Anvil 1.7.1 from the npm binary package: dev mnemonic, ten accounts, automine (its default), quiet; as anvil with
// its default flags, and as anvil-prune with --prune-history.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEV_MNEMONIC } from '../../src/keys/devAccounts.ts';
import { RpcClient } from '../lib/rpc.ts';
import { ANVIL_BIN } from './paths.ts';
import { freePort, peerNode, spawnNode } from './process.ts';
import type { RunningNode } from './types.ts';

// Anvil writes old states here once its chain passes ~500 blocks and never deletes them.
const ANVIL_TMP = join(homedir(), '.foundry', 'anvil', 'tmp');

const listTmp = (): Set<string> => new Set(existsSync(ANVIL_TMP) ? readdirSync(ANVIL_TMP) : []);

/**
 * Starts Anvil with its default flags plus `extra` (the bench's anvil-prune: `--prune-history`, which keeps no old
 * states and writes none to disk); stop() also removes the state folders this instance added under
 * ~/.foundry/anvil/tmp.
 */
export async function startAnvil(extra: string[] = [], name: 'anvil' | 'anvil-prune' = 'anvil'): Promise<RunningNode> {
  const before = listTmp();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--mnemonic',
    DEV_MNEMONIC,
    '--accounts',
    '10',
    '--balance',
    '10000',
    '--quiet',
    ...extra,
  ];
  const s = await spawnNode(name, ANVIL_BIN, args, url);
  const cleanup = () => {
    for (const entry of listTmp())
      if (!before.has(entry)) rmSync(join(ANVIL_TMP, entry), { recursive: true, force: true });
  };
  return peerNode(
    name,
    url,
    s,
    new RpcClient(url, 600_000, 1),
    (n) => ['anvil_mine', [`0x${n.toString(16)}`]],
    cleanup,
  );
}
