// How much state history a node keeps (app.toml pruning / pruning-keep-recent / pruning-interval).

/** How much state history a node keeps. */
export interface PruningConfig {
  mode: 'archive' | 'default' | 'custom';
  /** States kept: the head's and the ones of the keepRecent − 1 blocks before it. */
  keepRecent: number;
  /** A sweep runs at every height divisible by this. */
  interval: number;
}

/** Archive: nothing is ever deleted (the default). */
export const ARCHIVE: PruningConfig = { mode: 'archive', keepRecent: 0, interval: 0 };
/**
 * `--pruning default`: the Cosmos SDK's keep-recent (362880 states: three weeks at 5 s blocks). A sweep walks the
 * live state, so it runs every 1000 blocks rather than the SDK's 10.
 */
export const DEFAULT_PRUNING: PruningConfig = { mode: 'default', keepRecent: 362_880, interval: 1_000 };

/** Parses --pruning / --pruning-keep-recent / --pruning-interval into a config (throws on bad values). */
export function pruningConfig(mode: string, keepRecent?: number, interval?: number): PruningConfig {
  if (mode === 'archive' || mode === 'nothing') return ARCHIVE;
  if (mode === 'default') return DEFAULT_PRUNING;
  if (mode !== 'custom') throw new Error(`invalid pruning "${mode}" (use archive, default or custom)`);
  if (keepRecent === undefined || keepRecent < 2) {
    throw new Error('--pruning custom needs --pruning-keep-recent N with N >= 2 (states of the N most recent blocks)');
  }
  const every = interval ?? Math.min(Math.max(10, Math.floor(keepRecent / 10)), 1_000);
  if (every < 1) throw new Error('--pruning-interval must be at least 1');
  return { mode: 'custom', keepRecent, interval: every };
}
