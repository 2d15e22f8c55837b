// The root hash of a Merkle-Patricia trie built in one pass over sorted keys (no node store): the state tests and
// the fuzzer need roots of whole account maps, and blocks the roots of their transactions, receipts and withdrawals;
// none needs proofs or incremental updates.
import { keccak256 } from '../keccak.ts';
import { bigintToBytes, rlpEncode, type RlpItem } from './rlp.ts';

/** A keccak-256 implementation (the engine's by default; a caller may pass the one it already holds). */
export type Hash = (data: Uint8Array) => Uint8Array;

const EMPTY = new Uint8Array(0);

/** keccak256(rlp("")): the root of a trie with no entries. */
export const EMPTY_TRIE_ROOT = Uint8Array.from(
  Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex'),
);

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 0x0f;
  }
  return out;
}

// Hex-prefix encoding of a nibble path (Yellow Paper appendix C): flag 2 marks a leaf, +1 an odd length.
function hexPrefix(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const out = new Uint8Array(1 + (nibbles.length >> 1));
  const flag = (leaf ? 2 : 0) + odd;
  let i = 0;
  if (odd === 1) {
    out[0] = (flag << 4) | nibbles[0]!;
    i = 1;
  } else {
    out[0] = flag << 4;
  }
  for (let o = 1; i < nibbles.length; i += 2, o++) out[o] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}

// A child reference: the node itself when its encoding is shorter than 32 bytes, its hash otherwise.
function reference(node: RlpItem, hash: Hash): RlpItem {
  const encoded = rlpEncode(node);
  return encoded.length < 32 ? node : hash(encoded);
}

class Builder {
  constructor(
    private readonly keys: Uint8Array[],
    private readonly values: Uint8Array[],
    private readonly hash: Hash,
  ) {}

  /** The node holding entries [lo, hi) whose keys agree on their first `depth` nibbles. */
  node(lo: number, hi: number, depth: number): RlpItem {
    const keys = this.keys;
    if (hi - lo === 1) return [hexPrefix(keys[lo]!.subarray(depth), true), this.values[lo]!];
    // Keys are sorted, so the prefix shared by all is the one the first and the last share.
    const first = keys[lo]!;
    const last = keys[hi - 1]!;
    let shared = 0;
    const max = Math.min(first.length, last.length) - depth;
    while (shared < max && first[depth + shared] === last[depth + shared]) shared++;
    if (shared > 0) {
      return [
        hexPrefix(first.subarray(depth, depth + shared), false),
        reference(this.branch(lo, hi, depth + shared), this.hash),
      ];
    }
    return this.branch(lo, hi, depth);
  }

  private branch(lo: number, hi: number, depth: number): RlpItem[] {
    const keys = this.keys;
    const children: RlpItem[] = new Array<RlpItem>(17).fill(EMPTY);
    let i = lo;
    // A key that ends here (only possible when keys differ in length) is the branch's value.
    if (keys[i]!.length === depth) children[16] = this.values[i++]!;
    while (i < hi) {
      const nibble = keys[i]![depth]!;
      let j = i + 1;
      while (j < hi && keys[j]![depth] === nibble) j++;
      children[nibble] = reference(this.node(i, j, depth + 1), this.hash);
      i = j;
    }
    return children;
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
  const builder = new Builder(
    present.map(([k]) => toNibbles(k)),
    present.map(([, v]) => v),
    hash,
  );
  return hash(rlpEncode(builder.node(0, present.length, 0)));
}

/** Root of values keyed by rlp(index): the transactions, receipts and withdrawals tries of a block. */
export function indexedTrieRoot(values: readonly Uint8Array[], hash: Hash = keccak256): Uint8Array {
  return trieRoot(
    values.map((v, i) => [rlpEncode(bigintToBytes(BigInt(i))), v] as const),
    hash,
  );
}
