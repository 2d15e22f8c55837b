// Opens a forked dev chain's upstream state: the upstream client, the fork block (the configured one, else the one
// an earlier start of this home forked from, else upstream's latest) and the on-disk cache of what was fetched.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '../../primitives/hex.ts';
import { initKeccak } from '../../primitives/keccak.ts';
import { UpstreamError } from '../../errors/index.ts';
import { type ForkPoint, type ForkPointJson, forkPointFromJson, parseForkPoint } from './forkPoint.ts';
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
 * asks the upstream nothing. A home whose chain already exists (`chainPoint`: its first block, from the store) keeps
 * that fork block whatever the flags say (its blocks were built on that state; anvil_reset may have moved it), and
 * a new url must hold the same block there.
 */
export async function openFork(
  dataDir: string,
  url: string,
  blockNumber: bigint | undefined,
  chainPoint?: { number: bigint; hash: Uint8Array },
  /** Bytes the upstream history answers may hold in memory (the [cache] budget's share). */
  historyBytes?: number,
): Promise<ForkState> {
  await initKeccak();
  const upstream = new Upstream(url);
  const file = join(dataDir, FORK_CACHE_FILE);
  if (chainPoint !== undefined && blockNumber !== undefined && blockNumber !== chainPoint.number) {
    console.warn(
      `fork: this home's chain forked from block ${chainPoint.number} (not ${blockNumber}); it keeps that block ` +
        '(anvil_reset moves it; a new --home forks afresh)',
    );
  }
  let tag = chainPoint !== undefined ? chainPoint.number : blockNumber;
  const cached = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '{}') as CacheHeader).fork
    : undefined;
  // A restart keeps the block this home forked from: its local blocks were built on that state.
  const same = cached !== undefined && cached.url === url && (tag === undefined || BigInt(cached.block) === tag);
  if (same && cached.point !== undefined)
    return new ForkState(upstream, forkPointFromJson(url, cached.point), file, historyBytes);
  if (same) tag = BigInt(cached.block);
  const point = await fetchForkPoint(upstream, tag);
  if (chainPoint !== undefined && bytesToHex(point.hash) !== bytesToHex(chainPoint.hash)) {
    throw new UpstreamError(
      'badResponse',
      url,
      `its block ${chainPoint.number} is not the block this home forked from (hash ${bytesToHex(chainPoint.hash)})`,
    );
  }
  return new ForkState(upstream, point, file, historyBytes);
}

/** Upstream block `n` (default: its latest) and chain id, in one batched request. */
export async function fetchForkPoint(upstream: Upstream, n: bigint | undefined): Promise<ForkPoint> {
  const [block, chainId] = await upstream.batch([
    { method: 'eth_getBlockByNumber', params: [n === undefined ? 'latest' : '0x' + n.toString(16), false] },
    { method: 'eth_chainId', params: [] },
  ]);
  if (block === null && n !== undefined) {
    throw new UpstreamError('badResponse', upstream.url, `block ${n} does not exist upstream`);
  }
  return parseForkPoint(upstream.url, block, chainId);
}
