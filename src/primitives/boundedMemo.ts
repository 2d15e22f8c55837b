// Memos of pure results (hashed keys, bloom bits, host verdicts) with a size bound. When full, a memo starts over
// rather than evicting one entry at a time: a miss only costs a recomputation, the working set refills it at once,
// and a hit stays one Map lookup with no recency bookkeeping.

/** A memo of at most `max` entries that empties itself instead of growing past it. */
export class BoundedMemo<K, V> {
  private map = new Map<K, V>();

  constructor(private readonly max: number) {}

  /** The value memoized for `key`, if any. */
  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Memoizes `value` for `key` (starting over first when the memo is full) and returns it. */
  set(key: K, value: V): V {
    if (this.map.size >= this.max) this.map = new Map();
    this.map.set(key, value);
    return value;
  }

  /** How many entries it holds now. */
  get size(): number {
    return this.map.size;
  }
}
