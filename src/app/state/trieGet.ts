// Synchronous point reads from the Merkle-Patricia tries in the archive: one value by key, walking node by node
// with a synchronous node source, and the same walk collecting the nodes on the path (eth_getProof). Used where
// execution runs synchronously (Kestrel's engine, tracer hooks) and by the state views of the RPC reads.
import { rlpEncode, rlpDecode } from '../../primitives/rlp.ts';
import { EMPTY_TRIE_ROOT, keccak256 } from '../../primitives/hash.ts';
import { bytesEqual } from '../../primitives/hex.ts';
import { MissingTrieNodeError } from './walk.ts';

/** A synchronous node/code lookup by database key (content-addressed, so always consistent). */
export type NodeReader = (key: Uint8Array) => Uint8Array | undefined;

type Node = Uint8Array | Node[];

/** Nibbles of a byte string. */
export function nibbles(key: Uint8Array): number[] {
  const out = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** Decodes a hex-prefix encoded path (Yellow Paper appendix C): [nibbles, isLeaf]. */
export function fromHexPrefix(b: Uint8Array): [number[], boolean] {
  const flag = b[0]! >> 4;
  const path: number[] = [];
  if (flag & 1) path.push(b[0]! & 15);
  for (let i = 1; i < b.length; i++) path.push(b[i]! >> 4, b[i]! & 15);
  return [path, flag >= 2];
}

/**
 * Reads one value from a secure trie (keys hashed) rooted at `root` (undefined when absent). `hash` hashes the key
 * (block execution passes the WebAssembly keccak: the JS one was a tenth of a block's time).
 */
export function trieGet(
  readNode: NodeReader,
  root: Uint8Array,
  key: Uint8Array,
  hash: (data: Uint8Array) => Uint8Array = keccak256,
): Uint8Array | undefined {
  return walkPath(readNode, root, nibbles(hash(key)));
}

/** A value read from a secure trie with the proof of it (or of its absence). */
export interface TrieProof {
  value: Uint8Array | undefined;
  /** The RLP of every node on the key's path, root first, embedded nodes included (EIP-1186's order). */
  proof: Uint8Array[];
}

/**
 * Reads one value from a secure trie and collects the nodes on its path: the proof any Merkle-Patricia verifier
 * checks against `root` (for an absent key, the path down to where it leaves the trie). An empty trie has none.
 */
export function trieProve(
  readNode: NodeReader,
  root: Uint8Array,
  key: Uint8Array,
  hash: (data: Uint8Array) => Uint8Array = keccak256,
): TrieProof {
  const proof: Uint8Array[] = [];
  const value = walkPath(readNode, root, nibbles(hash(key)), (rlp) => proof.push(rlp));
  return { value, proof };
}

/** Follows `path` down from `root`; `visit` (when given) sees the RLP of each node reached, in order. */
function walkPath(
  readNode: NodeReader,
  root: Uint8Array,
  path: number[],
  visit?: (rlp: Uint8Array) => void,
): Uint8Array | undefined {
  if (bytesEqual(root, EMPTY_TRIE_ROOT)) return undefined;
  let ref: Node = root;
  let i = 0;
  for (;;) {
    let node: Node;
    if (ref instanceof Uint8Array) {
      if (ref.length === 0) return undefined;
      let raw: Uint8Array | undefined = ref;
      if (ref.length >= 32) {
        raw = readNode(ref);
        if (raw === undefined) throw new MissingTrieNodeError(ref, root);
      }
      node = rlpDecode(raw) as Node;
      visit?.(raw);
    } else {
      node = ref; // embedded node (its RLP is shorter than 32 bytes)
      visit?.(rlpEncode(node));
    }
    if (!Array.isArray(node)) return undefined;
    if (node.length === 17) {
      if (i === path.length) {
        const v = node[16] as Uint8Array;
        return v.length ? v : undefined;
      }
      ref = node[path[i++]!]!;
      continue;
    }
    const [seg, isLeaf] = fromHexPrefix(node[0] as Uint8Array);
    for (const n of seg) if (path[i++] !== n) return undefined;
    if (isLeaf) return i === path.length ? (node[1] as Uint8Array) : undefined;
    ref = node[1]!;
  }
}
