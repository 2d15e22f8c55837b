// Reading a Merkle-Patricia trie by key: the one reader every path uses (eth_getBalance's state views, eth_call's
// and block execution's archive reader, eth_getProof, the fork's check of upstream proofs). Nodes come from a node
// source by hash and are decoded once into a small tree that stays loaded, so a node on the path of many keys
// (the top branches) is read and decoded once for all of them; TrieUpdate (update.ts) changes that same tree.
import { bytesEqual, bytesToHex } from '../hex.ts';
import { EMPTY_TRIE_ROOT, keccak256 } from '../hash.ts';
import { rlpDecode, rlpEncode, type RlpItem } from '../rlp.ts';
import type { Ref } from './node.ts';

/** Where stored nodes come from: a node's RLP by its 32-byte hash (undefined when absent). */
export type NodeSource = (hash: Uint8Array) => Uint8Array | undefined;

/** A node a walk needed is not in the source (geth's wording: the state at `root` is not available). */
export class MissingTrieNodeError extends Error {
  override name = 'MissingTrieNodeError';
  constructor(
    readonly hash: Uint8Array,
    readonly root: Uint8Array,
  ) {
    super(`missing trie node ${bytesToHex(hash).slice(2)} (path ) state ${bytesToHex(root)} is not available`);
  }
}

/** A node whose bytes are not a trie node (a corrupt store or a forged proof). */
export class MalformedTrieNodeError extends Error {
  override name = 'MalformedTrieNodeError';
}

export interface Leaf {
  t: 0;
  /** The rest of the key, in nibbles. */
  path: number[];
  value: Uint8Array;
  /** Set while the node is as stored: its hash, or its own encoding when embedded (shorter than 32 bytes). */
  ref?: Ref;
  /** A TrieUpdate's mark on the nodes it made and alone holds (it may change them in place). */
  o?: object;
}
export interface Extension {
  t: 1;
  path: number[];
  child: TrieNode;
  ref?: Ref;
  o?: object;
}
export interface Branch {
  t: 2;
  children: Array<TrieNode | undefined>;
  value: Uint8Array;
  ref?: Ref;
  o?: object;
}
/** A stored node not loaded yet. */
export interface Unloaded {
  t: 3;
  hash: Uint8Array;
}
export type TrieNode = Leaf | Extension | Branch | Unloaded;
export type LoadedNode = Leaf | Extension | Branch;

/** Decodes a hex-prefix encoded path (Yellow Paper appendix C): [nibbles, isLeaf]. */
export function fromHexPrefix(b: Uint8Array): [number[], boolean] {
  if (b.length === 0 || b[0]! >> 4 > 3) throw new MalformedTrieNodeError('trie node path has no hex-prefix flag');
  const flag = b[0]! >> 4;
  const path: number[] = [];
  if (flag & 1) path.push(b[0]! & 15);
  for (let i = 1; i < b.length; i++) path.push(b[i]! >> 4, b[i]! & 15);
  return [path, flag >= 2];
}

function childOf(item: RlpItem): TrieNode | undefined {
  if (item instanceof Uint8Array) {
    if (item.length === 0) return undefined;
    if (item.length !== 32) throw new MalformedTrieNodeError(`trie node child of ${item.length} bytes`);
    return { t: 3, hash: item };
  }
  // An embedded node: its encoding is shorter than 32 bytes and stands in its parent in place of a hash.
  const node = decodeNode(item);
  node.ref = rlpEncode(item);
  return node;
}

function bytesOf(item: RlpItem | undefined): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new MalformedTrieNodeError('trie node field is not a byte string');
  return item;
}

/** A node from its decoded RLP: a 17-item list is a branch, a 2-item list a leaf or an extension. */
export function decodeNode(raw: RlpItem): LoadedNode {
  if (!Array.isArray(raw) || (raw.length !== 17 && raw.length !== 2)) {
    throw new MalformedTrieNodeError('trie node is not a list of 2 or 17 items');
  }
  if (raw.length === 17) {
    const children = new Array<TrieNode | undefined>(16);
    for (let i = 0; i < 16; i++) children[i] = childOf(raw[i]!);
    return { t: 2, children, value: bytesOf(raw[16]) };
  }
  const [path, leaf] = fromHexPrefix(bytesOf(raw[0]));
  if (leaf) return { t: 0, path, value: bytesOf(raw[1]) };
  const child = childOf(raw[1]!);
  if (child === undefined) throw new MalformedTrieNodeError('trie extension without a child');
  return { t: 1, path, child };
}

/** Nibble `i` of `key` (keys are walked in place: no nibble array per read). */
export function nib(key: Uint8Array, i: number): number {
  const b = key[i >> 1]!;
  return i & 1 ? b & 15 : b >> 4;
}

/** Length of the common prefix of `path` and `key`'s nibbles from `at`. */
export function common(path: number[], key: Uint8Array, at: number): number {
  const n = Math.min(path.length, key.length * 2 - at);
  let i = 0;
  while (i < n && path[i] === nib(key, at + i)) i++;
  return i;
}

/** True when `path` is exactly the rest of `key`'s nibbles from `at`. */
function isRest(path: number[], key: Uint8Array, at: number): boolean {
  return at + path.length === key.length * 2 && common(path, key, at) === path.length;
}

/** A value read with the proof of it (or of its absence). */
export interface TrieProof {
  value: Uint8Array | undefined;
  /** The RLP of every node on the key's path, root first, embedded nodes included (EIP-1186's order). */
  proof: Uint8Array[];
}

/** One trie at `rootHash`, read by key; the nodes a read loads stay loaded for the next. */
export class TrieReader {
  protected root: TrieNode | undefined;

  constructor(
    protected readonly rootHash: Uint8Array,
    protected readonly source: NodeSource,
  ) {
    this.root = bytesEqual(rootHash, EMPTY_TRIE_ROOT) ? undefined : { t: 3, hash: rootHash };
  }

  /** `n` decoded (read from the source when not loaded yet); its RLP goes to `proof` when given. */
  protected load(n: TrieNode, proof?: Uint8Array[]): LoadedNode {
    if (n.t !== 3) {
      // A node loaded by an earlier read kept only its hash: its bytes are read again.
      if (proof !== undefined) proof.push(n.ref!.length === 32 ? this.source(n.ref!)! : n.ref!);
      return n;
    }
    const bytes = this.source(n.hash);
    if (bytes === undefined) throw new MissingTrieNodeError(n.hash, this.rootHash);
    proof?.push(bytes);
    // Byte strings of the decoded node are views into `bytes` (stored nodes are immutable).
    const node = decodeNode(rlpDecode(bytes));
    // Only a root is stored while shorter than 32 bytes; as a child it would be embedded.
    node.ref = bytes.length >= 32 ? n.hash : bytes;
    return node;
  }

  /** The value at `key` (already hashed for a secure trie), or undefined. */
  get(key: Uint8Array): Uint8Array | undefined {
    return this.walk(key, undefined);
  }

  /**
   * The value at `key` with the nodes on its path: the proof any Merkle-Patricia verifier checks against the root
   * (for an absent key, the path down to where it leaves the trie). An empty trie has none.
   */
  prove(key: Uint8Array): TrieProof {
    const proof: Uint8Array[] = [];
    return { value: this.walk(key, proof), proof };
  }

  /** Follows `key` down from the root, loading what it meets (and noting each node's RLP in `proof` when given). */
  private walk(key: Uint8Array, proof: Uint8Array[] | undefined): Uint8Array | undefined {
    if (this.root === undefined) return undefined;
    let node = (this.root = this.load(this.root, proof));
    let at = 0;
    for (;;) {
      if (node.t === 0) return isRest(node.path, key, at) ? node.value : undefined;
      if (node.t === 1) {
        if (common(node.path, key, at) !== node.path.length) return undefined;
        at += node.path.length;
        node = node.child = this.load(node.child, proof);
        continue;
      }
      if (at === key.length * 2) return node.value.length > 0 ? node.value : undefined;
      const i = nib(key, at++);
      const c = node.children[i];
      if (c === undefined) return undefined;
      node = node.children[i] = this.load(c, proof);
    }
  }
}

/** Reads one value from a secure trie (keys hashed by `hash`) rooted at `root` (undefined when absent). */
export function trieGet(
  source: NodeSource,
  root: Uint8Array,
  key: Uint8Array,
  hash: (data: Uint8Array) => Uint8Array = keccak256,
): Uint8Array | undefined {
  return new TrieReader(root, source).get(hash(key));
}

/** Reads one value from a secure trie with the proof of it (or of its absence). */
export function trieProve(
  source: NodeSource,
  root: Uint8Array,
  key: Uint8Array,
  hash: (data: Uint8Array) => Uint8Array = keccak256,
): TrieProof {
  return new TrieReader(root, source).prove(hash(key));
}
