// EIP-7934 (Osaka): the RLP-encoded block may not exceed MAX_RLP_BLOCK_SIZE (10 MiB less a 2 MiB margin; the
// fork rules' maxRlpBlockSize). The block builder counts each transaction's bytes as it goes and leaves out those that would cross it; the header
// is not sealed yet, so it is counted at a bound no Kestrel header reaches.
import { type Fork, forkRules } from '../evm/index.ts';
import { rlpHeaderLength } from '../primitives/rlp.ts';

/**
 * Room kept for the header: its 21 fields encode to about 600 bytes (roots and the bloom are fixed-size, the
 * numbers short, extraData empty), so the bound leaves slack without costing a transaction its place.
 */
export const HEADER_SIZE_BOUND = 1024;

/** Bytes a transaction takes in the block's transaction list: a legacy one is its own RLP list, a typed one a string. */
export function txListBytes(encoded: Uint8Array): number {
  return encoded[0]! >= 0xc0 ? encoded.length : rlpHeaderLength(encoded.length) + encoded.length;
}

/** The block's RLP size at most, with `txsPayload` bytes of transactions (uncles and withdrawals empty). */
export function blockSizeBound(txsPayload: number): number {
  const payload = HEADER_SIZE_BOUND + rlpHeaderLength(txsPayload) + txsPayload + 2;
  return rlpHeaderLength(payload) + payload;
}

/** The transactions included in a block so far, against a size cap (0: none, as before Osaka). */
export class BlockSizeBudget {
  private txsPayload = 0;

  constructor(readonly cap: number) {}

  /** Whether the block stays within the cap with this transaction (its canonical encoding) too. */
  fits(encoded: Uint8Array): boolean {
    return this.cap === 0 || blockSizeBound(this.txsPayload + txListBytes(encoded)) <= this.cap;
  }

  /** Counts a transaction the block includes. */
  add(encoded: Uint8Array): void {
    this.txsPayload += txListBytes(encoded);
  }
}

/** An empty block's budget under `fork`'s cap (none before Osaka). */
export function blockSizeBudget(fork: Fork): BlockSizeBudget {
  return new BlockSizeBudget(forkRules(fork).maxRlpBlockSize);
}
