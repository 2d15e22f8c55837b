// A batch update of one secure Merkle-Patricia trie (keys are 32-byte hashes), synchronous: the nodes a block's
// changes touch are loaded once into memory, changed there, and hashed once at the end, bottom-up, only where they
// changed. ethereumjs' trie hashes and writes the whole path on every put (which made it the dominant cost of
// a block); the root and the nodes reachable from it are the same, because the node encoding is Ethereum's:
// nodes whose RLP is shorter than 32 bytes are embedded in their parent, the others (and the root) stored by hash.
// Updates are persistent (a put builds new nodes and never changes a loaded one), so the tree loaded by reads of
// the parent state can be forked and updated while the reads' view stays the parent's.
import { encodeBranch, encodeExtension, encodeLeaf, type Ref } from './node.ts';
import { EMPTY_TRIE_ROOT } from '../hash.ts';
import type { Hash } from './root.ts';
import { common, nib, type Branch, type LoadedNode, type NodeSource, type TrieNode, TrieReader } from './read.ts';

const EMPTY = new Uint8Array(0);

/** A branch's child refs, filled just before its encoding is written (encode() never nests two uses). */
const REFS = new Array<Ref | undefined>(16);

/** The nibbles of `key` in [from, to). */
function keyPath(key: Uint8Array, from: number, to: number = key.length * 2): number[] {
  const out = new Array<number>(to - from);
  for (let i = from; i < to; i++) out[i - from] = nib(key, i);
  return out;
}

/**
 * One secure trie being updated in memory: a TrieReader (reads load nodes into the tree) whose puts change that
 * tree; commit() hashes what changed and hands out the new nodes.
 */
export class TrieUpdate extends TrieReader {
  /**
   * Marks the nodes this update made since its last commit or fork: no other trie holds them, so a later put may
   * change them in place instead of copying the path again (a block's ~1,000 puts share their top branches).
   * Replaced at commit and fork, after which those nodes are shared and copied like any other.
   */
  private owner: object = {};

  constructor(
    rootHash: Uint8Array,
    source: NodeSource,
    private readonly hash: Hash,
  ) {
    super(rootHash, source);
  }

  /**
   * A trie sharing this one's loaded nodes, whose puts leave this one's content as it is. After a commit, a fork
   * may name the new root and load through another source (the next block's).
   */
  fork(rootHash: Uint8Array = this.rootHash, source: NodeSource = this.source): TrieUpdate {
    const t = new TrieUpdate(rootHash, source, this.hash);
    t.root = this.root;
    this.owner = {};
    return t;
  }

  /** Sets (or, with an empty value, deletes) the value at a 32-byte (already hashed) key. */
  put(key: Uint8Array, value: Uint8Array): void {
    this.root = value.length === 0 ? this.remove(this.root, key, 0) : this.insert(this.root, key, 0, value);
  }

  private insert(n: TrieNode | undefined, key: Uint8Array, at: number, value: Uint8Array): LoadedNode {
    const o = this.owner;
    if (n === undefined) return { t: 0, path: keyPath(key, at), value, o };
    const node = this.load(n);
    const mine = node.o === o;
    if (node.t === 2) {
      const i = nib(key, at);
      if (mine) {
        node.children[i] = this.insert(node.children[i], key, at + 1, value);
        return node;
      }
      const children = node.children.slice();
      children[i] = this.insert(children[i], key, at + 1, value);
      return { t: 2, children, value: node.value, o };
    }
    const cp = common(node.path, key, at);
    if (node.t === 0 && cp === node.path.length) {
      if (!mine) return { t: 0, path: node.path, value, o };
      node.value = value;
      return node;
    }
    if (node.t === 1 && cp === node.path.length) {
      const child = this.insert(node.child, key, at + cp, value);
      if (!mine) return { t: 1, path: node.path, child, o };
      node.child = child;
      return node;
    }
    // The paths part at nibble cp: a branch there, under an extension for the shared part.
    const children = new Array<TrieNode | undefined>(16).fill(undefined);
    const rest = node.path.slice(cp + 1);
    if (node.t === 0) children[node.path[cp]!] = { t: 0, path: rest, value: node.value, o };
    else children[node.path[cp]!] = rest.length > 0 ? { t: 1, path: rest, child: node.child, o } : node.child;
    children[nib(key, at + cp)] = { t: 0, path: keyPath(key, at + cp + 1), value, o };
    const branch: Branch = { t: 2, children, value: EMPTY, o };
    return cp > 0 ? { t: 1, path: keyPath(key, at, at + cp), child: branch, o } : branch;
  }

  /** Removes `key` below `n`; returns `n` itself when the key was absent (so nothing above it changes). */
  private remove(n: TrieNode | undefined, key: Uint8Array, at: number): TrieNode | undefined {
    if (n === undefined) return undefined;
    const node = this.load(n);
    if (node.t === 0) return common(node.path, key, at) === node.path.length ? undefined : n;
    if (node.t === 1) {
      if (common(node.path, key, at) !== node.path.length) return n;
      const child = this.remove(node.child, key, at + node.path.length);
      if (child === node.child) return n;
      if (child === undefined) return undefined;
      return this.prefixed(node.path, child);
    }
    const i = nib(key, at);
    const child = this.remove(node.children[i], key, at + 1);
    if (child === node.children[i]) return n;
    const children = node.children.slice();
    children[i] = child;
    let only = -1;
    let count = 0;
    for (let j = 0; j < 16; j++) {
      if (children[j] !== undefined) {
        count++;
        only = j;
      }
    }
    if (count + (node.value.length > 0 ? 1 : 0) >= 2) return { t: 2, children, value: node.value };
    if (count === 0) return node.value.length > 0 ? { t: 0, path: [], value: node.value } : undefined;
    // One child left: the branch collapses into it, its nibble joining the child's path.
    return this.prefixed([only], children[only]!);
  }

  /** `child` reached through `path` first: paths merge into a leaf or an extension. */
  private prefixed(path: number[], child: TrieNode): LoadedNode {
    const c = this.load(child);
    if (c.t === 0) return { t: 0, path: [...path, ...c.path], value: c.value };
    if (c.t === 1) return { t: 1, path: [...path, ...c.path], child: c.child };
    return { t: 1, path, child: c };
  }

  /** The new root hash; every new node of 32 bytes or more (and the root) goes to `store(hash, rlp)`. */
  commit(store: (hash: Uint8Array, rlp: Uint8Array) => void): Uint8Array {
    // The new nodes get their refs now and may be handed on (the next block's reader): none changes in place again.
    this.owner = {};
    const root = this.root;
    if (root === undefined) return EMPTY_TRIE_ROOT;
    if (root.t === 3) return root.hash;
    if (root.ref !== undefined && root.ref.length === 32) return root.ref;
    const arena = new NodeArena();
    const enc = this.encode(root, store, arena);
    const hash = this.hash(enc);
    store(hash, enc);
    root.ref = hash;
    return hash;
  }

  /** A node's RLP, written straight from the node (no intermediate RLP structure: this is a block's hot path). */
  private encode(node: LoadedNode, store: (hash: Uint8Array, rlp: Uint8Array) => void, arena: NodeArena): Uint8Array {
    if (node.t === 2) {
      // Children first (their encodings recurse), then their refs into the one shared array, used at once.
      const children = node.children;
      for (let i = 0; i < 16; i++) {
        const c = children[i];
        if (c !== undefined && c.t !== 3 && c.ref === undefined) this.refOf(c, store, arena);
      }
      for (let i = 0; i < 16; i++) {
        const c = children[i];
        REFS[i] = c === undefined ? undefined : c.t === 3 ? c.hash : c.ref;
      }
      return arena.took(encodeBranch(REFS, node.value, arena.rest()));
    }
    const p = node.path;
    if (node.t === 0) return arena.took(encodeLeaf(p, 0, p.length, node.value, arena.rest()));
    const child = this.refOf(node.child, store, arena);
    return arena.took(encodeExtension(p, 0, p.length, child, arena.rest()));
  }

  private refOf(node: TrieNode, store: (hash: Uint8Array, rlp: Uint8Array) => void, arena: NodeArena): Ref {
    if (node.t === 3) return node.hash;
    if (node.ref !== undefined) return node.ref;
    const enc = this.encode(node, store, arena);
    // An embedded node's encoding stays with the node (next blocks' tries hold it): its own copy, not a view that
    // would keep the commit's whole arena alive.
    if (enc.length < 32) return (node.ref = enc.slice());
    const hash = this.hash(enc);
    store(hash, enc);
    return (node.ref = hash);
  }
}

/** Bytes of one arena chunk: a few dozen branch nodes. */
const ARENA_CHUNK = 16 * 1024;

/**
 * Where one commit writes its node encodings: views into shared chunks instead of an array (and a separately
 * allocated backing store) per node. The encodings are only hashed and handed to `store` (the block's batch), so the
 * chunks live as long as that batch; a node too large for the rest of a chunk gets its own array.
 */
class NodeArena {
  private chunk = new Uint8Array(ARENA_CHUNK);
  private at = 0;

  /** The free rest of the current chunk, as the encoders' scratch (used only when the node fits). */
  rest(): Uint8Array {
    return this.chunk.subarray(this.at);
  }

  /** Marks `enc` as taken when the encoder wrote it into the chunk; returns it. */
  took(enc: Uint8Array): Uint8Array {
    if (enc.buffer === this.chunk.buffer) this.at += enc.length;
    // A node that did not fit: the next ones start a new chunk, once this one is nearly full.
    else if (ARENA_CHUNK - this.at < 1024) {
      this.chunk = new Uint8Array(ARENA_CHUNK);
      this.at = 0;
    }
    return enc;
  }
}
