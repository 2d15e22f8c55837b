// Ganache 7.9 CLI: dev mnemonic, ten accounts, eager instamine (its default), quiet logging.
import { DEV_MNEMONIC } from '../../src/keys/devAccounts.ts';
import { RpcClient } from '../lib/rpc.ts';
import { GANACHE_CLI } from './paths.ts';
import { freePort, peerNode, spawnNode } from './process.ts';
import type { RunningNode } from './types.ts';

/** Starts Ganache on a free loopback port. */
export async function startGanache(): Promise<RunningNode> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    GANACHE_CLI,
    '--server.host',
    '127.0.0.1',
    '--server.port',
    String(port),
    '--wallet.mnemonic',
    DEV_MNEMONIC,
    '--wallet.totalAccounts',
    '10',
    '--wallet.defaultBalance',
    '10000',
    '--miner.instamine',
    'eager',
    '--logging.quiet',
  ];
  const s = await spawnNode('ganache', process.execPath, args, url);
  return peerNode('ganache', url, s, new RpcClient(url, 600_000, 1), (n) => ['evm_mine', [{ blocks: n }]]);
}
