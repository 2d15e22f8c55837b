// Root of a Merkle-Patricia trie built from all its key/value pairs at once (transactions and receipts tries,
// keyed by rlp(index)). ethereumjs' incremental MPT costs ~0.4 ms per insert here; building the trie in one
// recursive pass over the sorted keys gives the same root an order of magnitude faster.
import { RLP } from '@ethereumjs/rlp';
import { keccak256 as jsKeccak256 } from '../../primitives/hash.ts';

/** A keccak-256 implementation (the node passes its WebAssembly one; the JS one is 10-25x slower on trie nodes). */
export type Hash = (data: Uint8Array) => Uint8Array;

type Node = Uint8Array | Node[];

const EMPTY = new Uint8Array(0);

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

function hexPrefix(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const out = new Uint8Array(1 + (nibbles.length >> 1));
  let i = 0;
  if (odd) {
    out[0] = (flag << 4) | nibbles[0]!;
    i = 1;
  } else {
    out[0] = flag << 4;
  }
  for (let o = 1; i < nibbles.length; i += 2, o++) out[o] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}

/** A child reference: nodes whose encoding is under 32 bytes are embedded, others referenced by hash. */
function ref(node: Node[], keccak256: Hash): Node {
  const enc = RLP.encode(node);
  return enc.length < 32 ? node : keccak256(enc);
}

function build(items: Array<[Uint8Array, Uint8Array]>, depth: number, keccak256: Hash): Node[] {
  if (items.length === 1) return [hexPrefix(items[0]![0].subarray(depth), true), items[0]![1]];
  // Longest common prefix below `depth` across the (sorted) keys: compare the first and the last.
  const first = items[0]![0];
  const last = items[items.length - 1]![0];
  let cp = 0;
  while (depth + cp < first.length && depth + cp < last.length && first[depth + cp] === last[depth + cp]) cp++;
  if (cp > 0)
    return [hexPrefix(first.subarray(depth, depth + cp), false), ref(build(items, depth + cp, keccak256), keccak256)];
  const branch: Node[] = new Array(17).fill(EMPTY);
  let i = 0;
  if (items[0]![0].length === depth) {
    branch[16] = items[0]![1];
    i = 1;
  }
  while (i < items.length) {
    const nib = items[i]![0][depth]!;
    let j = i;
    while (j < items.length && items[j]![0][depth] === nib) j++;
    branch[nib] = ref(build(items.slice(i, j), depth + 1, keccak256), keccak256);
    i = j;
  }
  return branch;
}

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Trie root of values keyed by rlp(index) (the Ethereum transactions/receipts trie). */
export function indexedTrieRoot(values: Uint8Array[], keccak256: Hash = jsKeccak256): Uint8Array {
  if (values.length === 0) return keccak256(RLP.encode(EMPTY));
  const items = values.map((v, i): [Uint8Array, Uint8Array] => [toNibbles(RLP.encode(i)), v]);
  items.sort((a, b) => compareNibbles(a[0], b[0]));
  return keccak256(RLP.encode(build(items, 0, keccak256)));
}
