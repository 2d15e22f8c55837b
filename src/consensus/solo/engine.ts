// The embedded single-validator engine. `blockTimeMs = 0` seals as soon as executable txs are pending (batching
// everything that arrived meanwhile, never an empty block); otherwise it seals every interval, empty or not.
import type { KestrelApp } from '../../app/app.ts';
import type { TxPool } from '../../mempool/pool.ts';

/** Drives the app: decides when to make a block and which txs go in. */
export class SoloEngine {
  private timer?: NodeJS.Timeout;
  private producing?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly app: KestrelApp,
    private readonly pool: TxPool,
    private readonly blockTimeMs: number,
  ) {}

  /** Starts interval sealing (instant mode needs no timer). */
  start(): void {
    if (this.blockTimeMs > 0) this.timer = setInterval(() => this.trigger(true), this.blockTimeMs);
  }

  /** Called when a tx entered the pool: in instant mode, seal soon (coalescing concurrent arrivals). */
  notify(): void {
    if (this.blockTimeMs === 0) this.trigger(false);
  }

  private trigger(allowEmpty: boolean): void {
    if (this.stopped) return;
    if (this.producing) {
      this.again = true;
      return;
    }
    this.producing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.produce(allowEmpty))
      .catch((e) => console.error('block production failed:', e))
      .finally(() => {
        this.producing = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          if (this.pool.hasPending()) this.trigger(false);
        }
      });
  }

  private async produce(allowEmpty: boolean): Promise<void> {
    // By effective tip at the next base fee, each sender in nonce order; txs the executor finds invalid are
    // skipped there and dropped (with a log line) by the pool in onCommitted.
    const txs = this.pool.executable(this.app.head.header.gasLimit, {
      baseFee: this.app.nextBaseFee(),
      minGasPrice: this.app.minGasPrice,
    });
    if (txs.length === 0 && !allowEmpty) return;
    const time = BigInt(Math.floor(Date.now() / 1000));
    const res = await this.app.finalizeBlock({ txs, time });
    const committed = await this.app.commit();
    this.pool.onCommitted(committed, res.rejected);
  }

  /**
   * Instant mode: resolves once `hash` has left the pool (mined, or dropped as invalid) or sealing has gone idle
   * (the tx waits behind a nonce gap or under the base fee); resolves at once otherwise. The send methods await
   * it, so a client finds the receipt as soon as the hash comes back (ethers' wait() otherwise waits for a next
   * block that instant mode makes only when another tx arrives). Concurrent sends still share blocks.
   */
  async settled(hash: Uint8Array): Promise<void> {
    if (this.blockTimeMs !== 0) return;
    while (this.producing && this.pool.get(hash)) await this.producing;
  }

  /** Stops sealing and waits for a block in progress to finish committing. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    while (this.producing) await this.producing;
  }
}
