// The node's Prometheus metrics, in one registry per node (two nodes in one process keep separate series).
// Values that already live elsewhere (pool sizes, subscriptions, database size) are read when the page is
// scraped; events (blocks, rejections, ABCI calls) update their series as they happen.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CommittedBlock } from '../app/app.ts';
import { RpcMetrics } from './rpcMetrics.ts';

/** Every series name starts with this. */
export const PREFIX = 'kestrel_';

/** Where the scrape-time gauges read their values. */
export interface MetricSources {
  poolCounts(): { pending: number; queued: number };
  wsSubscriptions(): number;
  /** Directory whose total file size is the database size. */
  dataDir: string;
  /** Whether a method name is in the method table (others are counted as "other"). */
  knownMethod(method: string): boolean;
  /** Each cache's bytes held now and its share of the [cache] budget. */
  caches?(): ReadonlyArray<{ name: string; bytes: number; limit: number }>;
}

/** Total size of the files under `dir` (recursively). */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await directoryBytes(p);
    else if (e.isFile())
      total += await stat(p).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The node's metrics. */
export class NodeMetrics {
  readonly registry = new Registry();
  readonly rpc: RpcMetrics;
  private readonly headHeight: Gauge;
  private readonly blockInterval: Histogram;
  private readonly blockTxs: Histogram;
  private readonly blockGas: Histogram;
  private readonly txsTotal: Counter;
  private readonly gasTotal: Counter;
  private readonly commitTime: Histogram;
  private readonly rejected: Counter<'reason'>;
  private readonly abci: Histogram<'method'>;
  private lastBlockAt?: number;
  private dbBytes = { at: 0, value: 0 };

  constructor(private readonly sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.headHeight = new Gauge({
      name: `${PREFIX}chain_head_height`,
      help: 'Number of the latest committed block',
      registers,
    });
    this.blockInterval = new Histogram({
      name: `${PREFIX}chain_block_interval_seconds`,
      help: 'Wall-clock time between consecutive block commits on this node',
      registers,
      buckets: [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60],
    });
    this.blockTxs = new Histogram({
      name: `${PREFIX}chain_block_transactions`,
      help: 'Transactions per committed block',
      registers,
      buckets: [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000],
    });
    this.blockGas = new Histogram({
      name: `${PREFIX}chain_block_gas_used`,
      help: 'Gas used per committed block',
      registers,
      buckets: [0, 21_000, 100_000, 500_000, 1e6, 3e6, 1e7, 2e7, 3e7],
    });
    this.txsTotal = new Counter({
      name: `${PREFIX}chain_transactions_total`,
      help: 'Transactions in committed blocks',
      registers,
    });
    this.gasTotal = new Counter({
      name: `${PREFIX}chain_gas_used_total`,
      help: 'Gas used by committed blocks',
      registers,
    });
    this.commitTime = new Histogram({
      name: `${PREFIX}chain_commit_duration_seconds`,
      help: 'Time to persist a block (state, receipts, indexes) in its atomic batch',
      registers,
      buckets: DURATION_BUCKETS,
    });
    this.rejected = new Counter({
      name: `${PREFIX}txpool_rejected_total`,
      help: 'Transactions refused at admission, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.abci = new Histogram({
      name: `${PREFIX}abci_request_duration_seconds`,
      help: 'Time the app took to answer an ABCI request, by method',
      labelNames: ['method'],
      registers,
      buckets: DURATION_BUCKETS,
    });
    new Gauge({
      name: `${PREFIX}txpool_pending`,
      help: 'Executable transactions in the pool',
      registers,
      collect() {
        this.set(sources.poolCounts().pending);
      },
    });
    new Gauge({
      name: `${PREFIX}txpool_queued`,
      help: 'Transactions waiting behind a nonce gap',
      registers,
      collect() {
        this.set(sources.poolCounts().queued);
      },
    });
    new Gauge({
      name: `${PREFIX}rpc_ws_subscriptions`,
      help: 'Active eth_subscribe subscriptions',
      registers,
      collect() {
        this.set(sources.wsSubscriptions());
      },
    });
    const databaseBytes = () => this.databaseBytes();
    new Gauge({
      name: `${PREFIX}db_size_bytes`,
      help: 'Size of the node database on disk (data directory)',
      registers,
      async collect() {
        this.set(await databaseBytes());
      },
    });
    const caches = () => sources.caches?.() ?? [];
    new Gauge({
      name: `${PREFIX}cache_bytes`,
      help: 'Bytes a cache holds (its estimate of entries, keys and per-entry overhead), by cache',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const c of caches()) this.set({ cache: c.name }, c.bytes);
      },
    });
    new Gauge({
      name: `${PREFIX}cache_limit_bytes`,
      help: "A cache's share of the [cache] budget, by cache (evicts past it)",
      labelNames: ['cache'],
      registers,
      collect() {
        for (const c of caches()) this.set({ cache: c.name }, c.limit);
      },
    });
    this.rpc = new RpcMetrics(sources.knownMethod);
    for (const m of this.rpc.promMetrics(PREFIX)) this.registry.registerMetric(m as never);
  }

  /** A block was committed: head, interval, size, gas and how long its batch took. */
  blockCommitted(c: CommittedBlock, commitSeconds: number, now = performance.now()): void {
    this.headHeight.set(Number(c.block.number));
    if (this.lastBlockAt !== undefined) this.blockInterval.observe((now - this.lastBlockAt) / 1000);
    this.lastBlockAt = now;
    const gas = Number(c.block.header.gasUsed);
    this.blockTxs.observe(c.block.txs.length);
    this.blockGas.observe(gas);
    this.txsTotal.inc(c.block.txs.length);
    this.gasTotal.inc(gas);
    this.commitTime.observe(commitSeconds);
  }

  /** Sets the head gauge (at start, before any block). */
  setHead(height: bigint): void {
    this.headHeight.set(Number(height));
  }

  /** A transaction was refused at admission. */
  txRejected(reason: string): void {
    this.rejected.inc({ reason });
  }

  /** Times an ABCI handler. */
  async timeAbci<T>(method: string, fn: () => Promise<T> | T): Promise<T> {
    const end = this.abci.startTimer({ method });
    try {
      return await fn();
    } finally {
      end();
    }
  }

  /** The page in the Prometheus text format. */
  async page(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** The database size, re-measured at most every 15 s (walking a large data directory is not free). */
  private async databaseBytes(): Promise<number> {
    const now = Date.now();
    if (now - this.dbBytes.at > 15_000) this.dbBytes = { at: now, value: await directoryBytes(this.sources.dataDir) };
    return this.dbBytes.value;
  }
}
