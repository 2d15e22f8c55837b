// State pruning (--pruning default|custom): keeps the state of the `keepRecent` most recent blocks and deletes
// every other trie node and code blob. Nodes are content-addressed and shared between roots, so nothing can be
// deleted by looking at one block: every `interval` blocks a mark-and-sweep walks the kept roots (each shared
// subtree once), then deletes the unmarked entries of the trie store. It runs inside Commit, before the next
// block executes, so no block writes nodes while it sweeps. Blocks, receipts, logs and the log index stay.
import type { KvOp, KvStore } from '../../store/kv.ts';
import { metaKey, trieKey } from '../../store/schema.ts';
import { StateWalk } from './walk.ts';

/** How much state history to keep (config/pruning.ts parses it; app/state cannot import config/). */
export interface PruningConfig {
  mode: 'archive' | 'default' | 'custom';
  keepRecent: number;
  interval: number;
}

const EARLIEST_KEY = metaKey('state-earliest');
const TRIE_START = trieKey(new Uint8Array(0));
const TRIE_END = Uint8Array.of(TRIE_START[0]! + 1);
const DELETE_BATCH = 5_000;
/**
 * Store reads of the mark phase between two turns of the event loop. The walk reads the whole live state, which
 * grows with it; in one piece it kept the node from answering any request (even eth_blockNumber) for the length of
 * the mark at every sweep. In steps, requests are answered between them; blocks still wait for the sweep's end.
 */
const MARK_STEP_READS = 2_000;
/** LevelDB reclaims deleted entries lazily; every this many sweeps the trie range is compacted explicitly. */
const COMPACT_EVERY = 10;

/** True when some state of this database was ever pruned (or it started from a snapshot): roots must be checked. */
export function statePruned(kv: KvStore): boolean {
  return kv.get(EARLIEST_KEY) !== undefined;
}

/** Records the lowest height whose state is stored (a sweep, or a node restored from a snapshot at that height). */
export function earliestStateOp(height: bigint): KvOp {
  const mark = Buffer.alloc(8);
  mark.writeBigUInt64BE(height);
  return { type: 'put', key: EARLIEST_KEY, value: mark };
}

/** What one sweep did. */
export interface PruneStats {
  head: bigint;
  earliest: bigint;
  kept: number;
  deleted: number;
  ms: number;
}

/** Deletes state older than the configured window. */
export class StatePruner {
  private sweeps = 0;

  constructor(
    private readonly kv: KvStore,
    readonly config: PruningConfig,
    /** The state root of the block at a height (undefined: no such block here). */
    private readonly rootAt: (n: bigint) => Uint8Array | undefined,
    private readonly log: (line: string) => void = () => {},
    /** Roots outside the window whose state is still being read (a snapshot in progress): kept too. */
    private readonly pinned: () => Uint8Array[] = () => [],
  ) {}

  /** The lowest height whose state is still stored (0 until the first sweep). */
  earliestState(): bigint {
    const v = this.kv.get(EARLIEST_KEY);
    return v ? Buffer.from(v).readBigUInt64BE(0) : 0n;
  }

  /** Called after each commit: sweeps when the head reaches a multiple of the interval. */
  async afterCommit(head: bigint): Promise<PruneStats | undefined> {
    if (this.config.mode === 'archive' || head % BigInt(this.config.interval) !== 0n) return undefined;
    if (head + 1n <= BigInt(this.config.keepRecent)) return undefined;
    return this.prune(head);
  }

  /** Keeps the states of heights head − keepRecent + 1 … head and deletes every other trie entry. */
  async prune(head: bigint): Promise<PruneStats> {
    const t0 = performance.now();
    const earliest = head - BigInt(this.config.keepRecent) + 1n;
    const live = new Set<string>();
    const get = (k: Uint8Array) => this.kv.get(trieKey(k));
    const roots: Uint8Array[] = [];
    for (let n = earliest < 0n ? 0n : earliest; n <= head; n++) {
      const root = this.rootAt(n);
      if (root) roots.push(root);
    }
    const enter = (key: Uint8Array) => {
      const id = Buffer.from(key).toString('latin1');
      if (live.has(id)) return false;
      live.add(id);
      return true;
    };
    for (const root of [...roots, ...this.pinned()]) {
      const walk = new StateWalk(root, get, enter);
      while (!walk.step(MARK_STEP_READS)) await new Promise<void>((r) => setImmediate(r));
    }
    let ops: KvOp[] = [];
    let deleted = 0;
    for await (const key of this.kv.keys(TRIE_START, TRIE_END)) {
      if (live.has(Buffer.from(key.subarray(1)).toString('latin1'))) continue;
      ops.push({ type: 'del', key });
      deleted++;
      if (ops.length >= DELETE_BATCH) {
        await this.kv.write(ops);
        ops = [];
      }
    }
    ops.push(earliestStateOp(earliest < 0n ? 0n : earliest));
    await this.kv.write(ops);
    if (++this.sweeps % COMPACT_EVERY === 0) await this.kv.compact(TRIE_START, TRIE_END);
    const stats = { head, earliest, kept: live.size, deleted, ms: performance.now() - t0 };
    if (deleted > 0) {
      this.log(
        `pruning: kept ${stats.kept} state entries of heights ${earliest}..${head}, deleted ${deleted} in ${stats.ms.toFixed(0)} ms`,
      );
    }
    return stats;
  }
}
