// The log index: for every address and every (topic position, topic) that occurs in a block's logs, the set of
// blocks holding it, in buckets of 4096 blocks (see postings.ts). A range query ORs the sets of a filter's
// alternatives and ANDs its positions, so it reads only the receipts of blocks that can match instead of
// walking every block. Index writes ride in the block's own atomic batch, so the index never lags the chain.
import type { ReceiptRecord } from '../store/records.ts';
import { readU64be, u64be } from '../primitives/hex.ts';
import type { KvOp, KvStore } from '../store/kv.ts';
import { logIndexKey, metaKey } from '../store/schema.ts';
import type { LogMatch } from './criteria.ts';
import { BITMAP_BYTES, BUCKET, appendOffset, orInto, setBits, truncateSet } from './postings.ts';

const HEAD = metaKey('logindex-head');
/** Item of "the block has at least one log" (wildcard queries skip log-less blocks with it). */
const ANY_LOG = Uint8Array.of(0x00);
const ADDRESS = 0x01;
const TOPIC = 0x10;

function addressItem(a: Uint8Array): Uint8Array {
  const out = new Uint8Array(21);
  out[0] = ADDRESS;
  out.set(a, 1);
  return out;
}

function topicItem(position: number, t: Uint8Array): Uint8Array {
  const out = new Uint8Array(33);
  out[0] = TOPIC + position;
  out.set(t, 1);
  return out;
}

function keyString(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

/** The distinct index items of one block's logs. */
function blockItems(receipts: ReceiptRecord[]): Uint8Array[] {
  const items = new Map<string, Uint8Array>();
  const add = (item: Uint8Array) => {
    const k = keyString(item);
    if (!items.has(k)) items.set(k, item);
  };
  for (const r of receipts) {
    for (const log of r.logs) {
      add(ANY_LOG);
      add(addressItem(log.address));
      log.topics.forEach((t, i) => add(topicItem(i, t)));
    }
  }
  return [...items.values()];
}

/** Accumulates posting updates for consecutive blocks over the stored sets. */
class PostingWriter {
  private readonly pending = new Map<string, { key: Uint8Array; value: Uint8Array }>();
  private last: bigint | undefined;

  constructor(private readonly kv: KvStore) {}

  add(n: bigint, receipts: ReceiptRecord[]): void {
    const bucket = Number(n / BigInt(BUCKET));
    const offset = Number(n % BigInt(BUCKET));
    for (const item of blockItems(receipts)) {
      const key = logIndexKey(item, bucket);
      const k = keyString(key);
      const current = this.pending.get(k)?.value ?? this.kv.get(key);
      this.pending.set(k, { key, value: appendOffset(current, offset) });
    }
    this.last = n;
  }

  get size(): number {
    return this.pending.size;
  }

  ops(): KvOp[] {
    const ops: KvOp[] = [...this.pending.values()].map(({ key, value }) => ({ type: 'put', key, value }));
    if (this.last !== undefined) ops.push({ type: 'put', key: HEAD, value: u64be(this.last) });
    return ops;
  }
}

/** Reads and extends the log index. */
export class LogIndex {
  constructor(private readonly kv: KvStore) {}

  /** Highest indexed block, or undefined when nothing is indexed yet. */
  head(): bigint | undefined {
    const v = this.kv.get(HEAD);
    return v === undefined ? undefined : readU64be(v);
  }

  /** Batch ops that index block `n` (the caller commits them with the block itself). */
  blockOps(n: bigint, receipts: ReceiptRecord[]): KvOp[] {
    const w = new PostingWriter(this.kv);
    w.add(n, receipts);
    return w.ops();
  }

  /**
   * Batch ops that remove blocks above `keep` from every posting set they were added to (`receiptsOf` gives the
   * receipts of each forgotten block), for a rewind of the chain written in the same batch.
   */
  rewindOps(keep: bigint, head: bigint, receiptsOf: (n: bigint) => ReceiptRecord[] | undefined): KvOp[] {
    const touched = new Map<string, { key: Uint8Array; bucket: bigint }>();
    for (let n = keep + 1n; n <= head; n++) {
      const rs = receiptsOf(n);
      if (!rs) throw new Error(`log index: receipts of block ${n} missing`);
      const bucket = n / BigInt(BUCKET);
      for (const item of blockItems(rs)) {
        const key = logIndexKey(item, Number(bucket));
        touched.set(keyString(key), { key, bucket });
      }
    }
    const ops: KvOp[] = [];
    for (const { key, bucket } of touched.values()) {
      const current = this.kv.get(key);
      if (current === undefined) continue;
      const keepOffset = keep < bucket * BigInt(BUCKET) ? -1 : Number(keep - bucket * BigInt(BUCKET));
      const next = truncateSet(current, Math.min(keepOffset, BUCKET - 1));
      ops.push(next === undefined ? { type: 'del', key } : { type: 'put', key, value: next });
    }
    if (this.head() !== undefined) ops.push({ type: 'put', key: HEAD, value: u64be(keep) });
    return ops;
  }

  /**
   * Batch ops that make `first` the indexed head (a forked chain's new first block after anvil_reset: the blocks
   * above the old one were rewound already, and the first block has no logs).
   */
  rebaseOps(first: bigint): KvOp[] {
    return [{ type: 'put', key: HEAD, value: u64be(first) }];
  }

  /**
   * Indexes the stored blocks the index has not seen (a database written before the index existed, or a new
   * node). Must finish before new blocks commit. Returns the number of blocks indexed.
   */
  async catchUp(
    chainHead: bigint,
    receiptsOf: (n: bigint) => ReceiptRecord[] | undefined,
    /** The chain's first stored block (a forked chain starts at its fork block). */
    first = 0n,
  ): Promise<number> {
    const head = this.head();
    const start = head === undefined ? first : head + 1n;
    let w = new PostingWriter(this.kv);
    let since = 0;
    let count = 0;
    for (let n = start; n <= chainHead; n++, count++) {
      const rs = receiptsOf(n);
      if (!rs) throw new Error(`log index: receipts of block ${n} missing`);
      w.add(n, rs);
      // Flush whole buckets or when the write set grows, so memory stays bounded on long chains.
      if (++since >= BUCKET || w.size > 50_000) {
        await this.kv.write(w.ops());
        w = new PostingWriter(this.kv);
        since = 0;
      }
    }
    if (since > 0) await this.kv.write(w.ops());
    return count;
  }

  /** Ascending numbers of the blocks in [from, to] that may hold a log matching `m` (a superset, never fewer). */
  *candidates(m: LogMatch, from: bigint, to: bigint): Generator<bigint> {
    if (from > to) return;
    const groups: Uint8Array[][] = [];
    if (m.addresses.length > 0) groups.push(m.addresses.map(addressItem));
    for (let i = 0; i < m.topics.length; i++) {
      const alts = m.topics[i];
      if (alts === null || alts === undefined) continue;
      if (i >= 4 || alts.length === 0) return; // logs carry at most 4 topics
      groups.push(alts.map((t) => topicItem(i, t)));
    }
    if (groups.length === 0) groups.push([ANY_LOG]);
    const B = BigInt(BUCKET);
    const first = Number(from / B);
    const last = Number(to / B);
    for (let bucket = first; bucket <= last; bucket++) {
      const set = this.bucketSet(groups, bucket);
      if (!set) continue;
      const lo = bucket === first ? Number(from % B) : 0;
      const hi = bucket === last ? Number(to % B) : BUCKET - 1;
      const base = BigInt(bucket) * B;
      for (const off of setBits(set, lo, hi)) yield base + BigInt(off);
    }
  }

  /** The bitmap of blocks in `bucket` matching every group (OR within a group), or undefined when empty. */
  private bucketSet(groups: Uint8Array[][], bucket: number): Uint8Array | undefined {
    let acc: Uint8Array | undefined;
    for (const group of groups) {
      const bm = new Uint8Array(BITMAP_BYTES);
      let found = false;
      for (const item of group) {
        const v = this.kv.get(logIndexKey(item, bucket));
        if (v === undefined) continue;
        orInto(bm, v);
        found = true;
      }
      if (!found) return undefined;
      if (acc === undefined) acc = bm;
      else {
        let any = 0;
        for (let i = 0; i < BITMAP_BYTES; i++) any |= acc[i]! &= bm[i]!;
        if (any === 0) return undefined;
      }
    }
    return acc;
  }
}
