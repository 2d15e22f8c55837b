// Decoded transactions by raw-bytes hash. CometBFT hands the app the same bytes several times (CheckTx, RECHECK
// after every block, ProcessProposal, FinalizeBlock); decoding and sender recovery are deterministic functions
// of those bytes, so each tx pays for its signature recovery once. With recovery workers, warm() decodes a batch
// (a proposal's txs, the CheckTx requests of one socket read) with the senders recovered on the workers; get()
// stays the one synchronous path and the only one that throws, so a refusal's error is the same either way.
import type { ExecTx } from '../../app/evm/executor.ts';
import type { RecoveryJob, UnrecoveredTx } from '../../app/evm/validate.ts';
import { LRUCache } from 'lru-cache';
import { keccak256 } from '../../primitives/hash.ts';
import { bareHex } from '../../primitives/hex.ts';

/**
 * A decoded tx's memory beyond its raw bytes, estimated: the transaction object's fields as bigints and arrays, its
 * hash, sender and the engine's form of it.
 */
const DECODED_OVERHEAD_BYTES = 3_072;

/** Decoding split around sender recovery, the recovery run elsewhere (the node's recovery workers). */
export interface OffloadedDecode {
  /** Every stateless check but the recovery (throws what decode would). */
  prepare(raw: Uint8Array): UnrecoveredTx;
  /** The public key of a job's signature; rejects when the signature does not recover. */
  recover(job: RecoveryJob): Promise<Uint8Array>;
  /** The decoded tx with its sender, from the recovered public key. */
  recovered(u: UnrecoveredTx, publicKey: Uint8Array): ExecTx;
}

/** Bounded map raw-tx hash → decoded tx (the least recently used go first). */
export class DecodeCache {
  private readonly entries: LRUCache<string, ExecTx>;
  /** Txs warm() is decoding, by key: get() waits for them through settled() instead of recovering twice. */
  private readonly pending = new Map<string, Promise<void>>();
  /** Keys of raw byte arrays already hashed (the same request's bytes reach warm() and then get()). */
  private readonly keys = new WeakMap<Uint8Array, string>();

  constructor(
    private readonly decode: (raw: Uint8Array) => ExecTx,
    capacity = 50_000,
    /** Bytes the decoded txs may hold (the [cache] budget's share). */
    maxBytes = 64 * 1024 * 1024,
    /** Where warm() recovers senders; without it warm() does nothing and get() decodes inline. */
    private readonly offload?: OffloadedDecode,
  ) {
    this.entries = new LRUCache({ max: capacity, maxSize: maxBytes });
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.entries.calculatedSize;
  }

  /** The decoded tx; throws the decoder's error (TxRejectedError) for undecodable bytes, which are not cached. */
  get(raw: Uint8Array): ExecTx {
    const key = this.keyOf(raw);
    const hit = this.entries.get(key);
    if (hit) return hit;
    const item = this.decode(raw);
    this.put(key, item, raw.byteLength);
    return item;
  }

  /** get() once a warm() of the same bytes has finished (at once when none is running). */
  async settled(raw: Uint8Array): Promise<ExecTx> {
    const running = this.pending.get(this.keyOf(raw));
    if (running) await running;
    return this.get(raw);
  }

  /**
   * Decodes the txs of `raws` not cached yet, their senders recovered off the main thread in one batch; resolves
   * when all are done. Nothing is refused here: a tx that fails to decode or recover is left out, and get() decodes
   * it inline and throws the decoder's own error.
   */
  warm(raws: readonly Uint8Array[]): Promise<void> {
    const offload = this.offload;
    if (!offload) return Promise.resolve();
    const waits: Promise<void>[] = [];
    for (const raw of raws) {
      const key = this.keyOf(raw);
      const running = this.pending.get(key);
      if (running) {
        waits.push(running);
        continue;
      }
      if (this.entries.has(key)) continue;
      let u: UnrecoveredTx;
      try {
        u = offload.prepare(raw);
      } catch {
        continue;
      }
      const done = offload.recover(u.job).then(
        (pub) => {
          this.pending.delete(key);
          this.put(key, offload.recovered(u, pub), raw.byteLength);
        },
        () => {
          this.pending.delete(key);
        },
      );
      this.pending.set(key, done);
      waits.push(done);
    }
    return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
  }

  /** Adds a tx the node decoded from exactly the bytes whose keccak is `item.hash` (its own submit path). */
  seed(item: ExecTx): void {
    if (item.encoded === undefined) return;
    const key = bareHex(item.hash);
    if (this.entries.has(key)) return;
    this.put(
      key,
      { tx: item.tx, sender: item.sender, hash: item.hash, encoded: item.encoded },
      item.encoded.byteLength,
    );
  }

  /** Forgets txs that can no longer come back (mined). Keys are Ethereum tx hashes: keccak of the raw bytes. */
  forget(txHashes: Uint8Array[]): void {
    for (const h of txHashes) this.entries.delete(bareHex(h));
  }

  /** Number of cached txs. */
  get size(): number {
    return this.entries.size;
  }

  private put(key: string, item: ExecTx, rawBytes: number): void {
    this.entries.set(key, item, { size: DECODED_OVERHEAD_BYTES + rawBytes });
  }

  private keyOf(raw: Uint8Array): string {
    let key = this.keys.get(raw);
    if (key === undefined) {
      key = bareHex(keccak256(raw));
      this.keys.set(raw, key);
    }
    return key;
  }
}
