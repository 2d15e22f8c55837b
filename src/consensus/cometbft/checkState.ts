// CometBFT's mempool view of the state (the Cosmos SDK's "checkState"): the last committed state plus the effects
// of every tx CheckTx admitted since, as far as admission needs them — each sender's next nonce and the funds
// its admitted txs may spend. Reset at Commit; CometBFT then re-sends its remaining txs as RECHECK in mempool
// (FIFO) order, which rebuilds it. Nonces are strict: CometBFT has no queue for future nonces, so a gap is refused.
import type { CheckedTx, KestrelApp } from '../../app/app.ts';
import { checkAgainstState, feeCap } from '../../app/evm/validate.ts';
import { TxRejectedError } from '../../errors/index.ts';
import type { DecodeCache } from './decodeCache.ts';
import { bareHex } from '../../primitives/hex.ts';

interface SenderView {
  nonce: bigint;
  spent: bigint;
}

/** Admission against the committed state plus the txs admitted since the last Commit. */
export class CheckState {
  private senders = new Map<string, SenderView>();

  constructor(
    private readonly app: KestrelApp,
    private readonly decoded: DecodeCache,
  ) {}

  /** CheckTx (NEW or RECHECK): decodes (cached), checks, and on success records the tx's nonce and spend. */
  async check(raw: Uint8Array): Promise<CheckedTx> {
    const item = await this.decoded.settled(raw);
    const key = bareHex(item.sender);
    const committed = await this.app.headAccount(item.sender);
    const view = this.senders.get(key) ?? { nonce: committed.nonce, spent: 0n };
    const { tx } = item;
    checkAgainstState(item, { nonce: view.nonce, balance: committed.balance - view.spent }, this.app.rules());
    if (tx.nonce > view.nonce) {
      throw new TxRejectedError(
        'nonceTooHigh',
        `nonce too high: address 0x${key}, tx: ${tx.nonce} state: ${view.nonce} (CometBFT's mempool takes each sender's nonces in order)`,
      );
    }
    this.senders.set(key, { nonce: view.nonce + 1n, spent: view.spent + tx.value + tx.gasLimit * feeCap(tx) });
    return { ...item, stateNonce: committed.nonce };
  }

  /** The next nonce the mempool expects from `sender` (undefined: none of its txs is pending). */
  pendingNonce(sender: Uint8Array): bigint | undefined {
    return this.senders.get(bareHex(sender))?.nonce;
  }

  /** Back to the committed state (at Commit, before CometBFT's rechecks). */
  reset(): void {
    this.senders = new Map();
  }
}
