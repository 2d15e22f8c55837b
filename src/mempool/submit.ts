// Transaction submission: CheckTx against the app, then the pool, then a nudge to the engine.
import { Address } from '@ethereumjs/util';
import type { KestrelApp } from '../app/app.ts';
import type { ChainQuery } from '../app/query.ts';
import type { TxPool } from './pool.ts';

/** Accepts raw transactions for inclusion. */
export class TxSubmitter {
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
    return item.hash;
  }

  /** The next usable nonce of an account, counting its pooled txs. */
  async pendingNonce(addr: Uint8Array): Promise<bigint> {
    const acc = await this.chain.account(addr, this.chain.head());
    return this.pool.pendingNonce(new Address(addr).bytes, acc.nonce);
  }
}
