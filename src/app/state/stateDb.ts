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

/** Read views of recent roots kept at once (the head's, and the few blocks below it clients ask about). */
const VIEWS = 16;

/** Byte limits of the state caches (shares of the [cache] budget, config/cacheBudget.ts). */
export interface StateCacheLimits {
  /** The shared trie-node cache. */
  trieNodes: number;
  /** The memos of all read views together (each view gets an equal part). */
  stateViews: number;
}

/** Without a budget (tests, tools): the trie-node cache holds the head's working set many times over. */
const DEFAULT_LIMITS: StateCacheLimits = { trieNodes: 32 * 1024 * 1024, stateViews: VIEWS * 6_000_000 };

/** Opens views of historical roots, sharing one cache of immutable trie nodes. */
export class StateDb {
  private readonly nodes: NodeCache;
  /** Read views of recent roots, so their memos stay warm across requests. */
  private readonly views = new LRUCache<string, StateView>({ max: VIEWS });
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
    private readonly limits: StateCacheLimits = DEFAULT_LIMITS,
  ) {
    this.nodes = new NodeCache(limits.trieNodes);
    this.archive = new BufferedTrieDb(kv, this.nodes);
    this.readNode = (key) => this.archive.getSync(key);
  }

  /** Estimated bytes of the trie-node cache. */
  get trieNodeBytes(): number {
    return this.nodes.size;
  }

  /** Estimated bytes of the read views' memos. */
  get viewBytes(): number {
    let total = 0;
    for (const v of this.views.values()) total += v.bytes;
    return total;
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
      view = new StateView(root, this.readNode, this.hash, Math.floor(this.limits.stateViews / VIEWS));
      this.views.set(key, view);
    }
    return view;
  }
}
