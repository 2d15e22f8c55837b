// The root hash of a Merkle-Patricia trie built in one pass over sorted keys (no node store): the state tests and
// the fuzzer need roots of whole account maps, and blocks the roots of their transactions, receipts and withdrawals;
// none needs proofs or incremental updates.
import { keccak256 } from '../keccak.ts';
import { encodeBranch, encodeExtension, encodeLeaf, type Ref } from './node.ts';
import { bigintToMinBytes } from '../bytes.ts';
import { rlpEncode } from '../rlp.ts';
import { EMPTY_TRIE_ROOT } from '../hash.ts';

/** A keccak-256 implementation (the engine's by default; a caller may pass the one it already holds). */
export type Hash = (data: Uint8Array) => Uint8Array;

const EMPTY: Uint8Array = new Uint8Array(0);

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 0x0f;
  }
  return out;
}

/**
 * Builds the nodes over sorted nibble keys, each written once, straight to its RLP, into one scratch buffer: a node
 * is hashed (or, embedded, copied) before the next is written, so hashed nodes cost no allocation.
 */
class Builder {
  private readonly scratch = new Uint8Array(4096);

  constructor(
    private readonly keys: Uint8Array[],
    /** The value of the entry at a sorted position (a view it may reuse: it is copied into the leaf at once). */
    private readonly valueAt: (position: number) => Uint8Array,
    private readonly hash: Hash,
  ) {}

  /** The root hash. */
  root(): Uint8Array {
    return this.hash(this.node(0, this.keys.length, 0));
  }

  /** The encoding of the node holding entries [lo, hi) whose keys agree on their first `depth` nibbles. */
  private node(lo: number, hi: number, depth: number): Uint8Array {
    const keys = this.keys;
    const first = keys[lo]!;
    if (hi - lo === 1) return encodeLeaf(first, depth, first.length, this.valueAt(lo), this.scratch);
    // Keys are sorted, so the prefix shared by all is the one the first and the last share.
    const last = keys[hi - 1]!;
    let shared = 0;
    const max = Math.min(first.length, last.length) - depth;
    while (shared < max && first[depth + shared] === last[depth + shared]) shared++;
    if (shared > 0) {
      const branch = this.ref(this.branch(lo, hi, depth + shared));
      return encodeExtension(first, depth, depth + shared, branch, this.scratch);
    }
    return this.branch(lo, hi, depth);
  }

  /** A child's reference: its encoding (copied out of the scratch) when shorter than 32 bytes, its hash otherwise. */
  private ref(encoded: Uint8Array): Ref {
    return encoded.length < 32 ? encoded.slice() : this.hash(encoded);
  }

  private branch(lo: number, hi: number, depth: number): Uint8Array {
    const keys = this.keys;
    const children = new Array<Ref | undefined>(16);
    let value = EMPTY;
    let i = lo;
    // A key that ends here (only possible when keys differ in length) is the branch's value.
    if (keys[i]!.length === depth) value = this.valueAt(i++).slice();
    while (i < hi) {
      const nibble = keys[i]![depth]!;
      let j = i + 1;
      while (j < hi && keys[j]![depth] === nibble) j++;
      children[nibble] = this.ref(this.node(i, j, depth + 1));
      i = j;
    }
    return encodeBranch(children, value, this.scratch);
  }
}

/**
 * The root hash of the trie holding `entries` (key, value). Keys must be distinct; an empty value means "absent"
 * and is skipped. Callers hash the keys themselves for a secure trie.
 */
export function trieRoot(
  entries: ReadonlyArray<readonly [Uint8Array, Uint8Array]>,
  hash: Hash = keccak256,
): Uint8Array {
  const present = entries.filter(([, v]) => v.length > 0);
  if (present.length === 0) return EMPTY_TRIE_ROOT;
  present.sort((a, b) => Buffer.compare(a[0], b[0]));
  for (let i = 1; i < present.length; i++) {
    if (Buffer.compare(present[i - 1]![0], present[i]![0]) === 0) throw new Error('trieRoot: duplicate key');
  }
  return new Builder(
    present.map(([k]) => toNibbles(k)),
    (i) => present[i]![1],
    hash,
  ).root();
}

/**
 * Nibbles of rlp(i), the key of entry i in a block's transactions, receipts and withdrawals tries: 0x80 for 0,
 * the byte itself below 0x80, else 0x80 + length and the big-endian bytes.
 */
function indexKey(i: number): Uint8Array {
  if (i === 0) return Uint8Array.of(8, 0);
  if (i < 0x80) return Uint8Array.of(i >> 4, i & 15);
  const bytes: number[] = [];
  for (let v = i; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return toNibbles(Uint8Array.from([0x80 + bytes.length, ...bytes]));
}

/** indexKey(i) by i, made once: every block's transactions and receipts tries use the same keys (never changed). */
const INDEX_KEYS: Uint8Array[] = [];

function indexKeyOf(i: number): Uint8Array {
  let key = INDEX_KEYS[i];
  if (key === undefined) {
    for (let j = INDEX_KEYS.length; j <= i; j++) INDEX_KEYS.push(indexKey(j));
    key = INDEX_KEYS[i]!;
  }
  return key;
}

/** Root of values keyed by rlp(index): the transactions, receipts and withdrawals tries of a block. */
export function indexedTrieRoot(values: readonly Uint8Array[], hash: Hash = keccak256): Uint8Array {
  // An empty value means "absent" (as in trieRoot); block tries never hold one, so that case takes the general path.
  if (values.some((v) => v.length === 0)) {
    return trieRoot(
      values.map((v, i) => [rlpEncode(bigintToMinBytes(BigInt(i))), v] as const),
      hash,
    );
  }
  return indexedTrieRootOf(values.length, (i) => values[i]!, hash);
}

/**
 * Root of `n` values keyed by rlp(index), each made by `valueAt(i)` when its leaf is written (a view it may reuse
 * for the next: the leaf copies it at once); every value must be non-empty. The keys' byte order is known without
 * sorting: 1..127 (one byte each), then 0 (0x80), then 128.. (0x81 xx, 0x82 xx xx, ..., longer encodings starting
 * higher, equal lengths ordered by value).
 */
export function indexedTrieRootOf(n: number, valueAt: (i: number) => Uint8Array, hash: Hash = keccak256): Uint8Array {
  if (n === 0) return EMPTY_TRIE_ROOT;
  const order: number[] = [];
  for (let i = 1; i < n && i < 0x80; i++) order.push(i);
  order.push(0);
  for (let i = 0x80; i < n; i++) order.push(i);
  return new Builder(
    order.map(indexKeyOf),
    (position) => {
      const v = valueAt(order[position]!);
      if (v.length === 0) throw new Error('indexedTrieRootOf: empty value');
      return v;
    },
    hash,
  ).root();
}
