// Drops queued txs that waited longer than the pool's lifetime for their nonce gap to fill (geth: 3 h). A timer
// sweeps at a fraction of the lifetime, so a short lifetime (tests) is honoured within a fraction of itself.
import type { TxPool } from './pool.ts';

/** Periodic sweep of expired queued txs. */
export class QueuedExpiry {
  private timer?: NodeJS.Timeout;

  constructor(private readonly pool: TxPool) {}

  /** Starts sweeping every lifetime/4 (between 100 ms and 1 min). */
  start(): void {
    if (this.timer) return;
    const every = Math.min(60_000, Math.max(100, Math.floor(this.pool.bounds.lifetimeMs / 4)));
    this.timer = setInterval(() => this.pool.expireQueued(), every);
    this.timer.unref();
  }

  /** Stops sweeping. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
