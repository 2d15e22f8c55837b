// Opens a forked dev chain's upstream state: the upstream client, the fork block (the configured one, else the one
// an earlier start of this home forked from, else upstream's latest) and the on-disk cache of what was fetched.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initKeccak } from '../../primitives/keccak.ts';
import { UpstreamError } from '../../errors/index.ts';
import { ForkState } from './forkState.ts';
import { Upstream } from './upstream.ts';

/** The cache file under the home's data directory. */
export const FORK_CACHE_FILE = 'fork-cache.jsonl';

/** The fork state for `url` at `blockNumber` (or the home's earlier fork block, or upstream's latest). */
export async function openFork(dataDir: string, url: string, blockNumber: bigint | undefined): Promise<ForkState> {
  await initKeccak();
  const upstream = new Upstream(url);
  const file = join(dataDir, FORK_CACHE_FILE);
  let tag = blockNumber === undefined ? undefined : '0x' + blockNumber.toString(16);
  // A restart keeps the block this home forked from: its local blocks were built on that state.
  if (tag === undefined && existsSync(file)) {
    const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '{}') as {
      fork?: { url: string; block: string };
    };
    if (first.fork?.url === url) tag = first.fork.block;
  }
  if (tag === undefined) {
    const latest = await upstream.call('eth_blockNumber', []);
    if (typeof latest !== 'string') throw new UpstreamError('badResponse', url, 'eth_blockNumber is not a quantity');
    tag = latest;
  }
  return new ForkState(upstream, tag, file);
}
