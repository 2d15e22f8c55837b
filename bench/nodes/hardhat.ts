// Hardhat 2.29 (EDR) `hardhat node`, run in a temporary project whose only config is generated here, so no
// hardhat.config from the repository is picked up. Request logging is switched off (its best case).
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_MNEMONIC } from '../../src/keys/devAccounts.ts';
import { RpcClient } from '../lib/rpc.ts';
import { HARDHAT_CLI, REPO_ROOT } from './paths.ts';
import { freePort, peerNode, spawnNode } from './process.ts';
import type { RunningNode } from './types.ts';

const CONFIG = `module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      accounts: { mnemonic: ${JSON.stringify(DEV_MNEMONIC)}, count: 10, accountsBalance: "10000000000000000000000" },
      mining: { auto: true, interval: 0 },
      loggingEnabled: false,
    },
  },
};
`;

/** Starts `hardhat node` on a free loopback port. */
export async function startHardhat(): Promise<RunningNode> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-bench-hardhat-'));
  writeFileSync(join(dir, 'hardhat.config.js'), CONFIG);
  // Hardhat insists on a local installation; point the temporary project at the repository's node_modules.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', DO_NOT_TRACK: '1' };
  try {
    const s = await spawnNode(
      'hardhat',
      process.execPath,
      [HARDHAT_CLI, 'node', '--hostname', '127.0.0.1', '--port', String(port)],
      url,
      { cwd: dir, env },
    );
    const client = new RpcClient(url, 600_000, 1);
    await client.call('hardhat_setLoggingEnabled', [false]);
    return peerNode(
      'hardhat',
      url,
      s,
      client,
      (n) => ['hardhat_mine', [`0x${n.toString(16)}`]],
      () => rmSync(dir, { recursive: true, force: true }),
    );
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
