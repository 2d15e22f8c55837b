// Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): each buffers what
// happened since its last poll. Fed by chain events (commits) and by the pool (txs entering it, so pending
// filters report txs when they arrive, not when they are mined). Idle filters expire; the count is capped.
import type { CheckedTx } from '../app/app.ts';
import { InvalidParamsError, KestrelError, LimitExceededError, NotFoundError } from '../errors/index.ts';
import type { LogCriteria } from './criteria.ts';
import { inBounds, matchesLog } from './criteria.ts';
import { newId } from './ids.ts';
import type { LogEntry, LogQuery } from './logQuery.ts';

/** What a filter reports. */
export type FilterKind = 'logs' | 'blocks' | 'pending';

/** geth's subscription type numbers, quoted in the eth_getFilterLogs error. */
const GETH_TYPE: Record<FilterKind, number> = { logs: 1, pending: 4, blocks: 5 };

interface Filter {
  kind: FilterKind;
  lastPoll: number;
  criteria?: LogCriteria;
  logs: LogEntry[];
  hashes: Uint8Array[];
  txs: CheckedTx[];
  /** Pending filters: report whole transactions instead of hashes. */
  fullTx: boolean;
  /** Set when more than bufferCap entries piled up unpolled; the next poll reports it and removes the filter. */
  overflowed: boolean;
}

/** What eth_getFilterChanges returns, before formatting. */
export type FilterChanges =
  { kind: 'logs'; logs: LogEntry[] } | { kind: 'hashes'; hashes: Uint8Array[] } | { kind: 'txs'; txs: CheckedTx[] };

/** Limits of the filter manager (app.toml filter-cap, filter-timeout). */
export interface FilterOptions {
  /** Most filters installed at once (0 = unlimited). */
  cap: number;
  /** A filter not polled for this long is removed. */
  timeoutMs: number;
  /** Most entries a filter buffers between polls. */
  bufferCap: number;
  /** Clock (tests). */
  now?: () => number;
}

/** Installed polling filters. */
export class FilterManager {
  private readonly filters = new Map<string, Filter>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(
    private readonly logs: LogQuery,
    private readonly opts: FilterOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** Starts the periodic removal of idle filters. */
  start(): void {
    const every = Math.min(30_000, Math.max(50, Math.floor(this.opts.timeoutMs / 4)));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  /** Stops the sweeper. */
  stop(): void {
    clearInterval(this.sweeper);
  }

  /** Number of installed filters. */
  get size(): number {
    return this.filters.size;
  }

  /** Installs a log filter; only logs of blocks committed from now on are reported by eth_getFilterChanges. */
  newLogFilter(criteria: LogCriteria): string {
    const { fromBlock: f, toBlock: t } = criteria;
    if (f?.kind === 'number' && t?.kind === 'number' && f.number > t.number) {
      throw new InvalidParamsError('invalid block range params');
    }
    return this.install({ kind: 'logs', criteria });
  }

  /** Installs a filter reporting the hash of each new block. */
  newBlockFilter(): string {
    return this.install({ kind: 'blocks' });
  }

  /** Installs a filter reporting each tx entering the pool (its hash, or the whole tx with `fullTx`). */
  newPendingTxFilter(fullTx = false): string {
    return this.install({ kind: 'pending', fullTx });
  }

  private install(f: { kind: FilterKind; criteria?: LogCriteria; fullTx?: boolean }): string {
    this.sweep();
    if (this.opts.cap > 0 && this.filters.size >= this.opts.cap) {
      throw new LimitExceededError(`error creating filter: max limit reached (filter-cap ${this.opts.cap})`);
    }
    const id = newId();
    this.filters.set(id, {
      fullTx: false,
      ...f,
      lastPoll: this.now(),
      logs: [],
      hashes: [],
      txs: [],
      overflowed: false,
    });
    return id;
  }

  private get(id: string): Filter {
    const f = this.filters.get(id);
    if (!f || this.expired(f)) {
      this.filters.delete(id);
      throw new NotFoundError('filter not found');
    }
    return f;
  }

  private expired(f: Filter): boolean {
    return this.now() - f.lastPoll > this.opts.timeoutMs;
  }

  /** eth_getFilterChanges: what happened since the previous poll; resets the idle timer. */
  changes(id: string): FilterChanges {
    const f = this.get(id);
    f.lastPoll = this.now();
    if (f.overflowed) {
      this.filters.delete(id);
      throw new LimitExceededError(
        `filter ${id} was removed: more than ${this.opts.bufferCap} entries arrived between two polls`,
      );
    }
    if (f.kind === 'logs') {
      const logs = f.logs;
      f.logs = [];
      return { kind: 'logs', logs };
    }
    if (f.fullTx) {
      const txs = f.txs;
      f.txs = [];
      return { kind: 'txs', txs };
    }
    const hashes = f.hashes;
    f.hashes = [];
    return { kind: 'hashes', hashes };
  }

  /** eth_getFilterLogs: every log matching a log filter's criteria, as eth_getLogs would answer now. */
  filterLogs(id: string): LogEntry[] {
    const f = this.get(id);
    f.lastPoll = this.now();
    if (f.kind !== 'logs' || !f.criteria) {
      throw new KestrelError(`filter ${id} doesn't have a LogsSubscription type: got ${GETH_TYPE[f.kind]}`);
    }
    return this.logs.getLogs(f.criteria);
  }

  /** eth_uninstallFilter: true when the filter existed. */
  uninstall(id: string): boolean {
    const f = this.filters.get(id);
    this.filters.delete(id);
    return f !== undefined && !this.expired(f);
  }

  /** Feeds a committed block: its hash to block filters, its matching logs to log filters. */
  onBlock(blockHash: Uint8Array, entries: LogEntry[]): void {
    for (const f of this.filters.values()) {
      if (f.kind === 'blocks') this.push(f, f.hashes, blockHash);
      else if (f.kind === 'logs' && entries.length > 0) {
        const c = f.criteria!;
        if (c.blockHash !== undefined) continue;
        for (const e of entries) if (inBounds(c, e.blockNumber) && matchesLog(c, e.log)) this.push(f, f.logs, e);
      }
    }
  }

  /** The chain was rewound to `keep` (evm_revert): buffered changes from the forgotten blocks are dropped. */
  onRewind(keep: bigint, forgotten: Set<string>): void {
    for (const f of this.filters.values()) {
      f.logs = f.logs.filter((e) => e.blockNumber <= keep);
      f.hashes =
        f.kind === 'blocks' ? f.hashes.filter((h) => !forgotten.has(Buffer.from(h).toString('hex'))) : f.hashes;
    }
  }

  /** Feeds a tx that entered the pool. */
  onPendingTx(tx: CheckedTx): void {
    for (const f of this.filters.values()) {
      if (f.kind !== 'pending') continue;
      if (f.fullTx) this.push(f, f.txs, tx);
      else this.push(f, f.hashes, tx.hash);
    }
  }

  private push<T>(f: Filter, buf: T[], item: T): void {
    if (f.overflowed) return;
    if (buf.length >= this.opts.bufferCap) {
      f.overflowed = true;
      f.logs = [];
      f.hashes = [];
      f.txs = [];
      return;
    }
    buf.push(item);
  }

  /** Removes filters idle for longer than the timeout. */
  sweep(): void {
    for (const [id, f] of this.filters) if (this.expired(f)) this.filters.delete(id);
  }
}
