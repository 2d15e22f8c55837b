// Adapters between ethereumjs' trie DB interface and the KvStore. The trie addresses nodes by hash, so nodes are
// immutable: a shared LRU of the nodes read is always valid, and writes can be buffered until the block's atomic
// batch.
import type { BatchDBOp, DB } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import { KvStore, type KvOp } from './kv.ts';
import { TRIE_PREFIX, trieKey } from './schema.ts';

type Key = string;
type Value = string | Uint8Array;

/**
 * Per-entry cost beyond the key and value bytes: the Map entry, the key string, the Uint8Array object and its
 * separately allocated backing store. Measured on Node 20: 200k entries of ~350-byte values cost ~710 bytes of RSS
 * each, so the budget is close to the memory the cache really holds.
 */
const ENTRY_OVERHEAD_BYTES = 384;

/** The share of a NodeCache's bytes that holds nodes read once (the rest holds nodes read again). */
const PROBATION_SHARE = 1 / 8;

/**
 * An LRU of immutable trie nodes bounded by an estimate of the memory it holds, in two segments (a segmented LRU):
 * a node read from the store joins a small probation segment and moves to the main one only when it is read again.
 * A count bound would let a long-running node's cache grow with the chain; a single LRU let one-off reads of old
 * state (traces and queries at past blocks each walk nodes that no later head shares) push out the head's working
 * set and fill the whole share with nodes never read again, so a node serving traces grew its memory for as long as
 * the share took to fill (a soak: +0.8 MiB a minute for half an hour).
 */
export class NodeCache {
  private readonly main: LRUCache<string, Uint8Array>;
  private readonly probation: LRUCache<string, Uint8Array>;
  constructor(maxBytes: number) {
    const probationBytes = Math.max(1, Math.floor(maxBytes * PROBATION_SHARE));
    const sizeCalculation = (v: Uint8Array, k: string) => cost(k, v);
    this.main = new LRUCache({ maxSize: Math.max(1, maxBytes - probationBytes), sizeCalculation });
    this.probation = new LRUCache({ maxSize: probationBytes, sizeCalculation });
  }
  /** Estimated bytes held (keys, values and per-entry overhead) in both segments. */
  get size(): number {
    return this.main.calculatedSize + this.probation.calculatedSize;
  }
  /** Estimated bytes held by nodes read only once so far. */
  get probationSize(): number {
    return this.probation.calculatedSize;
  }
  /** Looks a node up, refreshing its recency; a second read of a probationary node promotes it. */
  get(k: string): Uint8Array | undefined {
    const v = this.main.get(k);
    if (v !== undefined) return v;
    const p = this.probation.get(k);
    if (p !== undefined) {
      this.probation.delete(k);
      this.main.set(k, p);
    }
    return p;
  }
  /** Inserts a node just read from the store (on probation), evicting the least recently used past the bound. */
  set(k: string, v: Uint8Array): void {
    // A view into a larger buffer (a pooled Buffer slab) would pin the whole slab: keep a tight copy instead.
    const tight = v.byteOffset === 0 && v.buffer.byteLength === v.byteLength ? v : v.slice();
    if (this.main.has(k)) this.main.set(k, tight);
    else this.probation.set(k, tight);
  }
}

function cost(k: string, v: Uint8Array): number {
  return k.length + v.byteLength + ENTRY_OVERHEAD_BYTES;
}

function keyBytes(k: Key | Uint8Array): Uint8Array {
  return typeof k === 'string' ? Buffer.from(k, 'hex') : k;
}
/**
 * The buffer's and the cache's key of a node key: its bytes as a latin1 string (one char a byte: half the length
 * of hex and cheaper to make, on a block's hot path). ethereumjs hands keys as hex strings.
 */
function keyString(k: Key | Uint8Array): string {
  return typeof k === 'string' ? Buffer.from(k, 'hex').toString('latin1') : latin1(k);
}
function latin1(k: Uint8Array): string {
  return Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('latin1');
}
/**
 * LevelDB's value as a plain Uint8Array over the same bytes (it reads a Buffer): a node or code read back is the same
 * type whether it came from the cache, a block's buffer or the disk (callers compare code and nodes as bytes).
 */
function plainView(v: Uint8Array | undefined): Uint8Array | undefined {
  return v instanceof Buffer ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : v;
}
function valueBytes(v: Value): Uint8Array {
  return typeof v === 'string' ? Buffer.from(v, 'hex') : v;
}

/**
 * Trie DB whose writes stay in memory until drained into a block batch (used by the block executor), or are
 * simply dropped (used for eth_call and other throw-away execution).
 */
export class BufferedTrieDb implements DB<Key, Value> {
  private pending = new Map<string, Uint8Array>();
  /**
   * putSync's writes, as the bytes they came with: a block's state writer puts ~2,000 nodes a block and reads none of
   * them back, so each joins `pending` only when a read comes first (indexed()); drain() writes the rest straight from
   * their key bytes (no Map insert, no latin1 key turned back into bytes), building a string key only for the cache.
   */
  private queued: Array<[Uint8Array, Uint8Array]> = [];
  /** How many of `queued` are in `pending` too. */
  private indexedUpTo = 0;
  constructor(
    private readonly kv: KvStore,
    private readonly cache: NodeCache,
  ) {}

  /** Reads from pending writes, then the node cache, then LevelDB. */
  async get(key: Key | Uint8Array): Promise<Value | undefined> {
    const ks = keyString(key);
    const p = this.indexed().get(ks);
    if (p !== undefined) return p;
    const c = this.cache.get(ks);
    if (c !== undefined) return c;
    const v = plainView(this.kv.get(trieKey(keyBytes(key))));
    if (v !== undefined) this.cache.set(ks, v);
    return v;
  }
  /**
   * The synchronous form of get() for Kestrel's engine, which reads the parent state while this buffer may still
   * hold nodes not yet written to LevelDB (a dev-toolkit edit flushed just before the block's transactions).
   */
  getSync(key: Uint8Array): Uint8Array | undefined {
    const ks = latin1(key);
    const p = this.indexed().get(ks);
    if (p !== undefined) return p;
    const c = this.cache.get(ks);
    if (c !== undefined) return c;
    const v = plainView(this.kv.get(trieKey(key)));
    if (v !== undefined) this.cache.set(ks, v);
    return v;
  }
  /** Buffers a write (the synchronous form of put(), for the block's state writer). */
  putSync(key: Uint8Array, value: Uint8Array): void {
    this.queued.push([key, value]);
  }

  /** `pending` with every queued write in it. */
  private indexed(): Map<string, Uint8Array> {
    const q = this.queued;
    for (; this.indexedUpTo < q.length; this.indexedUpTo++) {
      const [k, v] = q[this.indexedUpTo]!;
      this.pending.set(latin1(k), v);
    }
    return this.pending;
  }
  /** Buffers a write. */
  async put(key: Key | Uint8Array, val: Value): Promise<void> {
    this.indexed().set(keyString(key), valueBytes(val));
  }
  /** Content-addressed nodes are never deleted (archive node). */
  async del(_key: Key | Uint8Array): Promise<void> {}
  /** Buffers a batch of writes. */
  async batch(ops: BatchDBOp<Key, Value>[]): Promise<void> {
    const pending = this.indexed();
    for (const op of ops) if (op.type === 'put') pending.set(keyString(op.key), valueBytes(op.value));
  }
  /** Same instance: the trie's shallow copies must share the buffer. */
  shallowCopy(): DB<Key, Value> {
    return this;
  }
  /** Nothing to open. */
  async open(): Promise<void> {}

  /**
   * Moves buffered writes into batch ops for the block's atomic write. They do not join the shared node cache: the
   * next block reads them through the tries its parent carried (already decoded), a read elsewhere finds them in
   * LevelDB's memtable and caches them then, and a write that fails leaves nothing cached that is not on disk.
   * Inserting ~2,300 nodes a block into the LRU cost a third of drain-and-write.
   */
  drain(): KvOp[] {
    const q = this.queued;
    const ops: KvOp[] = new Array<KvOp>(q.length - this.indexedUpTo);
    // Queued writes not indexed yet go straight from their bytes, their store keys cut from one slab (a key put
    // twice holds the same node: its one value, content-addressed, is simply written twice).
    let size = 0;
    for (let i = this.indexedUpTo; i < q.length; i++) size += 1 + q[i]![0].length;
    const slab = new Uint8Array(size);
    for (let i = this.indexedUpTo, at = 0; i < q.length; i++) {
      const [k, v] = q[i]!;
      slab[at] = TRIE_PREFIX;
      slab.set(k, at + 1);
      ops[i - this.indexedUpTo] = { type: 'put', key: slab.subarray(at, at + 1 + k.length), value: v };
      at += 1 + k.length;
    }
    for (const [k, v] of this.pending) ops.push({ type: 'put', key: trieKey(Buffer.from(k, 'latin1')), value: v });
    this.discard();
    return ops;
  }

  /** Forgets buffered writes (a block that was abandoned). */
  discard(): void {
    this.pending = new Map();
    this.queued = [];
    this.indexedUpTo = 0;
  }
}
