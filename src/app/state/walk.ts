// Walks everything a state root needs from the trie store: the account trie's nodes, each account's storage trie
// and its contract code. Pruning marks what it finds as live; snapshots copy it. Nodes are addressed by their
// hash (code by 'c' ‖ code hash, ethereumjs' layout), so a subtree met twice (shared between roots, or between
// accounts with equal storage) is walked once when `enter` says it was seen.
import { rlpDecode } from '../../primitives/rlp.ts';
import { decodeNode, MissingTrieNodeError, type TrieNode } from '../../primitives/trie/read.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';

/** ethereumjs' prefix of code entries in the trie store. */
export const CODE_PREFIX = 0x63;

/** The store key of code with this hash: 'c' ‖ code hash. */
export function codeStoreKey(codeHash: Uint8Array): Uint8Array {
  const key = new Uint8Array(33);
  key[0] = CODE_PREFIX;
  key.set(codeHash, 1);
  return key;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** True for the root of a trie with nothing in it. */
export function isEmptyRoot(root: Uint8Array): boolean {
  return root.length === 0 || sameBytes(root, EMPTY_TRIE_ROOT);
}

/**
 * Visits every store entry (trie node or code) reachable from `root`. `get` reads the store; `enter(key, value)`
 * is called once per entry found and returns false to skip what lies below it (already visited). Throws
 * MissingTrieNodeError when a node is absent.
 */
export function walkState(
  root: Uint8Array,
  get: (key: Uint8Array) => Uint8Array | undefined,
  enter: (key: Uint8Array, value: Uint8Array) => boolean,
): void {
  new StateWalk(root, get, enter).step(Infinity);
}

/**
 * walkState in steps: each step() reads at most `maxReads` entries from the store, so a long walk (a snapshot of a
 * large state) can yield to the event loop between steps. The store must keep the root's entries until it ends.
 */
export class StateWalk {
  /** Work list of [node reference, is it in the account trie]. */
  private readonly work: Array<[TrieNode, boolean]>;

  constructor(
    private readonly root: Uint8Array,
    private readonly get: (key: Uint8Array) => Uint8Array | undefined,
    private readonly enter: (key: Uint8Array, value: Uint8Array) => boolean,
  ) {
    this.work = isEmptyRoot(root) ? [] : [[{ t: 3, hash: root }, true]];
  }

  /** Walks on for at most `maxReads` store reads; true once the walk is complete. */
  step(maxReads: number): boolean {
    const { work, root, get, enter } = this;
    let reads = 0;
    while (work.length > 0 && reads < maxReads) {
      const [ref, accountTrie] = work.pop()!;
      let node = ref;
      if (node.t === 3) {
        const raw = get(node.hash);
        reads++;
        if (raw === undefined) throw new MissingTrieNodeError(node.hash, root);
        if (!enter(node.hash, raw)) continue;
        node = decodeNode(rlpDecode(raw));
      }
      if (node.t === 2) {
        for (const c of node.children) if (c !== undefined) work.push([c, accountTrie]);
        if (node.value.length > 0 && accountTrie) reads += this.account(node.value);
      } else if (node.t === 1) work.push([node.child, accountTrie]);
      else if (accountTrie) reads += this.account(node.value);
    }
    return work.length === 0;
  }

  /** An account leaf: queues its storage trie and enters its code; returns the store reads it made. */
  private account(value: Uint8Array): number {
    const fields = rlpDecode(value) as Uint8Array[];
    const storageRoot = fields[2]!;
    const codeHash = fields[3]!;
    if (!isEmptyRoot(storageRoot)) this.work.push([{ t: 3, hash: storageRoot }, false]);
    if (sameBytes(codeHash, EMPTY_CODE_HASH)) return 0;
    const key = codeStoreKey(codeHash);
    const code = this.get(key);
    if (code === undefined) throw new MissingTrieNodeError(codeHash, this.root);
    this.enter(key, code);
    return 1;
  }
}
