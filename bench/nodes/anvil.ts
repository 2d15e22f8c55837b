// Anvil 1.7.1 from the npm binary package: dev mnemonic, ten accounts, automine (its default), quiet.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEV_MNEMONIC } from '../../src/keys/devAccounts.ts';
import { RpcClient } from '../lib/rpc.ts';
import { ANVIL_BIN } from './paths.ts';
import { freePort, peerNode, spawnNode } from './process.ts';
import type { RunningNode, StartOptions } from './types.ts';

// Anvil writes old states here once its chain passes ~500 blocks and never deletes them.
const ANVIL_TMP = join(homedir(), '.foundry', 'anvil', 'tmp');

const listTmp = (): Set<string> => new Set(existsSync(ANVIL_TMP) ? readdirSync(ANVIL_TMP) : []);

/**
 * Starts Anvil (with `extra` arguments); stop() also removes the state folders this instance added under
 * ~/.foundry/anvil/tmp. For writes it runs with --prune-history, its fastest setting there: it then keeps no old
 * states and writes none to disk (without it, 282-335 tx/s against 529-925 in bench/sendCpu.ts at 2,000-3,000
 * ERC20 transfers).
 */
export async function startAnvil(opts: StartOptions = {}, extra: string[] = []): Promise<RunningNode> {
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
    ...(opts.writes ? ['--prune-history'] : []),
    ...extra,
  ];
  const s = await spawnNode('anvil', ANVIL_BIN, args, url);
  const cleanup = () => {
    for (const entry of listTmp())
      if (!before.has(entry)) rmSync(join(ANVIL_TMP, entry), { recursive: true, force: true });
  };
  return peerNode(
    'anvil',
    url,
    s,
    new RpcClient(url, 600_000, 1),
    (n) => ['anvil_mine', [`0x${n.toString(16)}`]],
    cleanup,
  );
}
