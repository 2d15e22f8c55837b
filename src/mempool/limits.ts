// Pool bounds (geth's four slot counts, the queued lifetime, the replacement bump) and the price order used to
// pick what to evict when a bound is reached.
import type { Transaction } from '../primitives/tx/types.ts';
import { feeCap, tipCap } from '../app/evm/validate.ts';

/** Pool bounds, as in app.toml [mempool]. */
export interface PoolLimits {
  /** Executable txs an account may always hold; beyond this its txs are the first to go when pending is full. */
  accountSlots: number;
  /** Executable (pending) txs in the whole pool. */
  globalSlots: number;
  /** Non-executable (queued, beyond a nonce gap) txs per account. */
  accountQueue: number;
  /** Queued txs in the whole pool. */
  globalQueue: number;
  /** How long a queued tx may wait for its gap to fill (ms). */
  lifetimeMs: number;
  /** Minimum bump, in percent, of both fee caps for a same-nonce replacement. */
  priceBumpPercent: bigint;
}

/** geth's defaults (legacypool.DefaultConfig). */
export const DEFAULT_POOL_LIMITS: PoolLimits = {
  accountSlots: 16,
  globalSlots: 4096 + 1024,
  accountQueue: 64,
  globalQueue: 1024,
  lifetimeMs: 3 * 60 * 60 * 1000,
  priceBumpPercent: 10n,
};

/** Orders txs by what they offer: fee cap, then tip cap (negative when `a` pays less than `b`). */
export function comparePrice(a: Transaction, b: Transaction): number {
  const fa = feeCap(a);
  const fb = feeCap(b);
  if (fa !== fb) return fa < fb ? -1 : 1;
  const ta = tipCap(a);
  const tb = tipCap(b);
  return ta === tb ? 0 : ta < tb ? -1 : 1;
}

/** True when `next` bumps both fee caps of `prev` by at least `percent` (geth's replacement rule). */
export function isEnoughBump(prev: Transaction, next: Transaction, percent: bigint): boolean {
  const bump = 100n + percent;
  return feeCap(next) * 100n >= feeCap(prev) * bump && tipCap(next) * 100n >= tipCap(prev) * bump;
}
