// State views over the archive: every block's state root stays readable. Reads go through StateView (synchronous
// trie reads, primitives/trie/read.ts); writes are never made here (block execution, genesis and dev-toolkit edits write state
// diffs through app/evm/stateWrite.ts into a BufferedTrieDb).
import type { Common } from '@ethereumjs/common';
import { LRUCache } from 'lru-cache';
import type { KvStore } from '../../store/kv.ts';
import { trieKey } from '../../store/schema.ts';
import { BufferedTrieDb, NodeCache } from '../../store/trieDb.ts';
import { keccak256 } from '../../primitives/hash.ts';
import { bareHex } from '../../primitives/hex.ts';
import { StateView } from './stateView.ts';
import { MissingTrieNodeError, type NodeSource } from '../../primitives/trie/read.ts';
import { isEmptyRoot } from './walk.ts';

/** Memory budget of the shared trie-node cache: the head's working set fits many times over. */
const NODE_CACHE_BYTES = 32 * 1024 * 1024;

/** Opens views of historical roots, sharing one cache of immutable trie nodes. */
export class StateDb {
  private readonly nodes = new NodeCache(NODE_CACHE_BYTES);
  /** Read views of recent roots, so their memos stay warm across requests. */
  private readonly views = new LRUCache<string, StateView>({ max: 16 });
  /** The archive's committed nodes and code, through the node cache (never written). */
  private readonly archive: BufferedTrieDb;
  /** Reads a committed trie node or code entry by its store key (content-addressed: always consistent). */
  readonly readNode: NodeSource;

  /**
   * Set when state can be missing (pruning, or a node restored from a snapshot): every view then checks that its
   * root is stored, so a query for a deleted state fails with geth's error instead of reading half a trie (or an
   * answer from the node cache). Archive nodes skip the read.
   */
  checkRoots = false;

  constructor(
    private readonly kv: KvStore,
    /** Its keccak (when it has one) hashes trie keys. */
    common: Common,
    /** keccak-256 for trie keys: the Common's (main.ts gives it the WebAssembly one) unless told otherwise. */
    private readonly hash: (data: Uint8Array) => Uint8Array = common.customCrypto.keccak256 ?? keccak256,
  ) {
    this.archive = new BufferedTrieDb(kv, this.nodes);
    this.readNode = (key) => this.archive.getSync(key);
  }

  /** A fresh buffered trie DB over the archive (writes stay in memory until drained). */
  bufferedDb(): BufferedTrieDb {
    return new BufferedTrieDb(this.kv, this.nodes);
  }

  /** Throws geth's missing-trie-node error when roots are checked and `root`'s node is not stored. */
  requireRoot(root: Uint8Array): void {
    if (this.checkRoots && !isEmptyRoot(root) && this.kv.get(trieKey(root)) === undefined) {
      throw new MissingTrieNodeError(root, root);
    }
  }

  /** The read-only state at `root`, reused for repeated reads of the same root (its memo then stays warm). */
  readView(root: Uint8Array): StateView {
    this.requireRoot(root);
    const key = bareHex(root);
    let view = this.views.get(key);
    if (!view) {
      view = new StateView(root, this.readNode, this.hash);
      this.views.set(key, view);
    }
    return view;
  }
}
