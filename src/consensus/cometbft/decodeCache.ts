// Decoded transactions by raw-bytes hash. CometBFT hands the app the same bytes several times (CheckTx, RECHECK
// after every block, ProcessProposal, FinalizeBlock); decoding and sender recovery are deterministic functions
// of those bytes, so each tx pays for its signature recovery once.
import type { ExecTx } from '../../app/evm/executor.ts';
import { keccak256 } from '../../primitives/hash.ts';

/** Bounded map raw-tx hash → decoded tx (oldest entries go first). */
export class DecodeCache {
  private readonly entries = new Map<string, ExecTx>();

  constructor(
    private readonly decode: (raw: Uint8Array) => ExecTx,
    private readonly capacity = 50_000,
  ) {}

  /** The decoded tx; throws the decoder's error (TxRejectedError) for undecodable bytes, which are not cached. */
  get(raw: Uint8Array): ExecTx {
    const key = Buffer.from(keccak256(raw)).toString('hex');
    const hit = this.entries.get(key);
    if (hit) return hit;
    const item = this.decode(raw);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, item);
    return item;
  }

  /** Forgets txs that can no longer come back (mined). Keys are Ethereum tx hashes: keccak of the raw bytes. */
  forget(txHashes: Uint8Array[]): void {
    for (const h of txHashes) this.entries.delete(Buffer.from(h).toString('hex'));
  }

  /** Number of cached txs. */
  get size(): number {
    return this.entries.size;
  }
}
