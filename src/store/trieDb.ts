// Adapters between ethereumjs' trie DB interface and the KvStore. The trie addresses nodes by hash, so nodes are
// immutable: a shared LRU of them is always valid, and writes can be buffered until the block's atomic batch.
import type { BatchDBOp, DB } from '@ethereumjs/util';
import { KvStore, type KvOp } from './kv.ts';
import { trieKey } from './schema.ts';

type Key = string;
type Value = string | Uint8Array;

/** A bounded map used as an LRU of immutable trie nodes (Map keeps insertion order). */
export class NodeCache {
  private readonly map = new Map<string, Uint8Array>();
  constructor(private readonly max: number) {}
  /** Looks a node up, refreshing its recency. */
  get(k: string): Uint8Array | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  /** Inserts a node, evicting the oldest when full. */
  set(k: string, v: Uint8Array): void {
    if (this.map.size >= this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    this.map.set(k, v);
  }
}

function keyBytes(k: Key | Uint8Array): Uint8Array {
  return typeof k === 'string' ? Buffer.from(k, 'hex') : k;
}
function keyString(k: Key | Uint8Array): string {
  return typeof k === 'string' ? k : Buffer.from(k).toString('hex');
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
  constructor(private readonly kv: KvStore, private readonly cache: NodeCache) {}

  /** Reads from pending writes, then the node cache, then LevelDB. */
  async get(key: Key | Uint8Array): Promise<Value | undefined> {
    const ks = keyString(key);
    const p = this.pending.get(ks);
    if (p !== undefined) return p;
    const c = this.cache.get(ks);
    if (c !== undefined) return c;
    const v = this.kv.get(trieKey(keyBytes(key)));
    if (v !== undefined) this.cache.set(ks, v);
    return v;
  }
  /** Buffers a write. */
  async put(key: Key | Uint8Array, val: Value): Promise<void> {
    this.pending.set(keyString(key), valueBytes(val));
  }
  /** Content-addressed nodes are never deleted (archive node). */
  async del(_key: Key | Uint8Array): Promise<void> {}
  /** Buffers a batch of writes. */
  async batch(ops: BatchDBOp<Key, Value>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') this.pending.set(keyString(op.key), valueBytes(op.value));
  }
  /** Same instance: the trie's shallow copies must share the buffer. */
  shallowCopy(): DB<Key, Value> {
    return this;
  }
  /** Nothing to open. */
  async open(): Promise<void> {}

  /** Moves buffered writes into batch ops (and the shared cache) for the block's atomic write. */
  drain(): KvOp[] {
    const ops: KvOp[] = [];
    for (const [k, v] of this.pending) {
      ops.push({ type: 'put', key: trieKey(Buffer.from(k, 'hex')), value: v });
      this.cache.set(k, v);
    }
    this.pending = new Map();
    return ops;
  }

  /** Forgets buffered writes (a block that was abandoned). */
  discard(): void {
    this.pending = new Map();
  }
}
