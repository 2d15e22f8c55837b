// How the [cache] budget is split between the node's caches. Each cache gets a fixed share of the whole and evicts
// past it, so the node's cache memory is bounded by the budget whatever the state size; the metrics report each
// cache's bytes against its share (kestrel_cache_bytes, kestrel_cache_limit_bytes).

/** The caches that hold a share of the budget. */
export type CacheName =
  | 'trie_nodes'
  | 'head_state'
  | 'code'
  | 'code_analysis'
  | 'blocks'
  | 'receipts'
  | 'state_views'
  | 'call_state'
  | 'block_state'
  | 'leveldb'
  | 'fork_history'
  | 'tx_decode';

/**
 * Shares of the budget, summing to 1. The largest go where a miss costs most: trie nodes (a miss is a LevelDB read
 * and a decode per level of a walk) and the head's flat state (every read at `latest` and every admission). LevelDB's
 * own block cache backs all of them with compressed blocks. Blocks and receipts serve the newest blocks' reads and
 * the log filters; the memos of calls and historical reads hold what one block's requests touch, and the head's
 * block state what the next block's execution reads again (the tries and values a block hands to the next).
 */
const SHARES: Readonly<Record<CacheName, number>> = {
  trie_nodes: 0.25,
  head_state: 0.2,
  code: 0.05,
  code_analysis: 0.02,
  blocks: 0.08,
  receipts: 0.08,
  state_views: 0.07,
  call_state: 0.07,
  block_state: 0.03,
  leveldb: 0.1,
  fork_history: 0.03,
  tx_decode: 0.02,
};

/** Each cache's byte limit under a budget of `budgetBytes` (floored to whole bytes, so they sum to at most it). */
export function cacheLimits(budgetBytes: number): Record<CacheName, number> {
  const out = {} as Record<CacheName, number>;
  for (const [name, share] of Object.entries(SHARES) as Array<[CacheName, number]>) {
    out[name] = Math.floor(budgetBytes * share);
  }
  return out;
}

/** The budget when app.toml has no [cache] (1 GiB). */
export const DEFAULT_CACHE_BUDGET_BYTES = 1024 * 1024 * 1024;
