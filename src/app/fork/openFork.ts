// Opens a forked dev chain's upstream state: the upstream client, the fork block (the configured one, else the one
// an earlier start of this home forked from, else upstream's latest) and the on-disk cache of what was fetched.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initKeccak } from '../../primitives/keccak.ts';
import { UpstreamError } from '../../errors/index.ts';
import { type ForkPointJson, forkPointFromJson, parseForkPoint } from './forkPoint.ts';
import { ForkState } from './forkState.ts';
import { Upstream } from './upstream.ts';

/** The cache file under the home's data directory. */
export const FORK_CACHE_FILE = 'fork-cache.jsonl';

/** The first line of the cache file: which fork it holds. */
interface CacheHeader {
  fork?: { url: string; block: string; point?: ForkPointJson };
}

/**
 * The fork state for `url` at `blockNumber` (or the home's earlier fork block, or upstream's latest). The fork
 * block and the upstream's chain id are asked for once (one batched request) and kept in the cache, so a restart
 * asks the upstream nothing.
 */
export async function openFork(dataDir: string, url: string, blockNumber: bigint | undefined): Promise<ForkState> {
  await initKeccak();
  const upstream = new Upstream(url);
  const file = join(dataDir, FORK_CACHE_FILE);
  let tag = blockNumber === undefined ? undefined : '0x' + blockNumber.toString(16);
  const cached = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '{}') as CacheHeader).fork
    : undefined;
  // A restart keeps the block this home forked from: its local blocks were built on that state.
  const same = cached !== undefined && cached.url === url && (tag === undefined || tag === cached.block);
  if (same && cached.point !== undefined) return new ForkState(upstream, forkPointFromJson(url, cached.point), file);
  if (same) tag = cached.block;
  const [block, chainId] = await upstream.batch([
    { method: 'eth_getBlockByNumber', params: [tag ?? 'latest', false] },
    { method: 'eth_chainId', params: [] },
  ]);
  if (block === null && tag !== undefined) {
    throw new UpstreamError('badResponse', url, `block ${BigInt(tag)} does not exist upstream (--fork-block-number)`);
  }
  return new ForkState(upstream, parseForkPoint(url, block, chainId), file);
}
