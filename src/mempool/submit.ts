// Transaction submission: CheckTx against the app, then the pool, then a nudge to the engine.
import { Address } from '@ethereumjs/util';
import type { CheckedTx, KestrelApp } from '../app/app.ts';
import type { ChainQuery } from '../app/query.ts';
import type { TxPool } from './pool.ts';

/** Accepts raw transactions for inclusion. */
export class TxSubmitter {
  private readonly acceptedListeners: Array<(tx: CheckedTx) => void> = [];

  constructor(
    private readonly app: KestrelApp,
    private readonly chain: ChainQuery,
    private readonly pool: TxPool,
    private readonly onAccepted: () => void,
  ) {}

  /** Validates and pools a raw signed tx; returns its hash (throws TxRejectedError with geth's message). */
  async submitRaw(raw: Uint8Array): Promise<Uint8Array> {
    const item = await this.app.checkTx(raw);
    this.pool.add(item, item.stateNonce);
    this.onAccepted();
    for (const fn of this.acceptedListeners) {
      try {
        fn(item);
      } catch (e) {
        console.error('pending-tx listener failed:', e);
      }
    }
    return item.hash;
  }

  /** Registers a listener called for every tx that entered the pool (pending filters, subscriptions). */
  onAcceptedTx(fn: (tx: CheckedTx) => void): void {
    this.acceptedListeners.push(fn);
  }

  /** The next usable nonce of an account, counting its pooled txs. */
  async pendingNonce(addr: Uint8Array): Promise<bigint> {
    const acc = await this.chain.account(addr, this.chain.head());
    return this.pool.pendingNonce(new Address(addr).bytes, acc.nonce);
  }
}
