// State views over the archive: every block's state root stays readable. A view is a MerkleStateManager on a trie
// at a given root; execution views buffer their writes in memory so nothing reaches disk unless a block commits.
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { ValueEncoding } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import type { KvStore } from '../../store/kv.ts';
import { trieKey } from '../../store/schema.ts';
import { BufferedTrieDb, NodeCache } from '../../store/trieDb.ts';
import { bareHex } from '../../primitives/hex.ts';
import { type RootReads, RootReadsStateManager } from './rootReads.ts';
import { isEmptyRoot, MissingTrieNodeError } from './walk.ts';

/** Memory budget of the shared trie-node cache: the head's working set fits many times over. */
const NODE_CACHE_BYTES = 32 * 1024 * 1024;

/** Creates state managers at historical roots, sharing one cache of immutable trie nodes. */
export class StateDb {
  private readonly nodes = new NodeCache(NODE_CACHE_BYTES);
  /** Read views of recent roots, so their caches stay warm across requests. */
  private readonly views = new LRUCache<string, MerkleStateManager>({ max: 16 });

  /**
   * Set when state can be missing (pruning, or a node restored from a snapshot): every view then checks that its
   * root is stored, so a query for a deleted state fails with geth's error instead of reading half a trie (or an
   * answer from the node cache). Archive nodes skip the read.
   */
  checkRoots = false;

  constructor(
    private readonly kv: KvStore,
    private readonly common: Common,
  ) {}

  /** A fresh buffered trie DB over the archive (writes stay in memory until drained). */
  bufferedDb(): BufferedTrieDb {
    return new BufferedTrieDb(this.kv, this.nodes);
  }

  /** A state manager for executing on top of `root`; its writes go to `db` (drain to persist, or drop). */
  executionState(root: Uint8Array, db: BufferedTrieDb = this.bufferedDb()): MerkleStateManager {
    return new MerkleStateManager({ common: this.common, trie: this.trieAt(root, db), caches: new Caches() });
  }

  /**
   * A state manager for throw-away execution on top of `reads.root` (writes are never drained) whose archive reads
   * go through `reads`, shared with every other such state manager at that root.
   */
  callState(reads: RootReads): MerkleStateManager {
    const trie = this.trieAt(reads.root, this.bufferedDb());
    return new RootReadsStateManager({ common: this.common, trie, caches: new Caches() }, reads);
  }

  /** The account trie at `root` (empty = the empty trie) over `db`. */
  /** Throws geth's missing-trie-node error when roots are checked and `root`'s node is not stored. */
  requireRoot(root: Uint8Array): void {
    if (this.checkRoots && !isEmptyRoot(root) && this.kv.get(trieKey(root)) === undefined) {
      throw new MissingTrieNodeError(root, root);
    }
  }

  private trieAt(root: Uint8Array, db: BufferedTrieDb): MerklePatriciaTrie {
    this.requireRoot(root);
    return new MerklePatriciaTrie({
      db,
      root: root.length ? root : undefined,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      common: this.common,
    });
  }

  /**
   * A read-only view at `root`, reused for repeated reads of the same root (its caches then stay warm).
   * Callers must not write through it.
   */
  readView(root: Uint8Array): MerkleStateManager {
    this.requireRoot(root);
    const key = bareHex(root);
    let view = this.views.get(key);
    if (!view) {
      view = this.executionState(root);
      this.views.set(key, view);
    }
    return view;
  }
}
