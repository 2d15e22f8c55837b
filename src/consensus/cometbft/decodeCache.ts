// Decoded transactions by raw-bytes hash. CometBFT hands the app the same bytes several times (CheckTx, RECHECK
// after every block, ProcessProposal, FinalizeBlock); decoding and sender recovery are deterministic functions
// of those bytes, so each tx pays for its signature recovery once.
import type { ExecTx } from '../../app/evm/executor.ts';
import { LRUCache } from 'lru-cache';
import { keccak256 } from '../../primitives/hash.ts';
import { bareHex } from '../../primitives/hex.ts';

/**
 * A decoded tx's memory beyond its raw bytes, estimated: the transaction object's fields as bigints and arrays, its
 * hash, sender and the engine's form of it.
 */
const DECODED_OVERHEAD_BYTES = 3_072;

/** Bounded map raw-tx hash → decoded tx (the least recently used go first). */
export class DecodeCache {
  private readonly entries: LRUCache<string, ExecTx>;

  constructor(
    private readonly decode: (raw: Uint8Array) => ExecTx,
    capacity = 50_000,
    /** Bytes the decoded txs may hold (the [cache] budget's share). */
    maxBytes = 64 * 1024 * 1024,
  ) {
    this.entries = new LRUCache({ max: capacity, maxSize: maxBytes });
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.entries.calculatedSize;
  }

  /** The decoded tx; throws the decoder's error (TxRejectedError) for undecodable bytes, which are not cached. */
  get(raw: Uint8Array): ExecTx {
    const key = bareHex(keccak256(raw));
    const hit = this.entries.get(key);
    if (hit) return hit;
    const item = this.decode(raw);
    this.entries.set(key, item, { size: DECODED_OVERHEAD_BYTES + raw.byteLength });
    return item;
  }

  /** Forgets txs that can no longer come back (mined). Keys are Ethereum tx hashes: keccak of the raw bytes. */
  forget(txHashes: Uint8Array[]): void {
    for (const h of txHashes) this.entries.delete(bareHex(h));
  }

  /** Number of cached txs. */
  get size(): number {
    return this.entries.size;
  }
}
