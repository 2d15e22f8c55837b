// Builds the log index, eth_getLogs, polling filters and subscriptions, and feeds them chain and pool events.
// Called by main.ts before block production starts, so the index has caught up before the next commit.
import type { KestrelApp } from '../app/app.ts';
import type { TxSubmitter } from '../mempool/submit.ts';
import type { ChainStore } from '../store/chainStore.ts';
import type { KvStore } from '../store/kv.ts';
import { FilterManager } from './filterManager.ts';
import { LogIndex } from './logIndex.ts';
import { LogQuery, committedLogs } from './logQuery.ts';
import type { JsonRpcConfig } from '../config/schema.ts';
import { SubscriptionManager, type NotificationFormat } from './subscriptions.ts';

/** The limits of the filter services (app.toml [json-rpc]). */
export type FilterLimits = Pick<
  JsonRpcConfig,
  | 'logsCap'
  | 'blockRangeCap'
  | 'filterCap'
  | 'filterTimeoutMs'
  | 'wsSubscriptionsPerConnection'
  | 'wsSubscriptionBufferBytes'
>;

/** The running filter services. */
export interface FilterServices {
  index: LogIndex;
  logs: LogQuery;
  filters: FilterManager;
  subscriptions: SubscriptionManager;
  stop(): void;
}

/** Opens the log index (catching up with the stored chain), then wires filters and subscriptions to events. */
export async function startFilterServices(deps: {
  kv: KvStore;
  chainStore: ChainStore;
  app: KestrelApp;
  txs: TxSubmitter;
  limits: FilterLimits;
  format: NotificationFormat;
  log?: (message: string) => void;
}): Promise<FilterServices> {
  const { kv, chainStore, app, txs, limits } = deps;
  const index = new LogIndex(kv);
  const behind = app.head.number - (index.head() ?? -1n);
  if (behind > 1000n) deps.log?.(`log index: indexing ${behind} stored blocks`);
  await index.catchUp(app.head.number, (n) => chainStore.receipts(n), chainStore.forkPoint?.number ?? 0n);
  app.addIndexer((c) => index.blockOps(c.block.number, c.receipts));
  app.addRewinder((keep, head) => index.rewindOps(keep, head, (n) => chainStore.receipts(n)));
  app.addRebaser((first) => index.rebaseOps(first));
  const logs = new LogQuery(chainStore, index, () => app.head.number, limits);
  const filters = new FilterManager(logs, {
    cap: limits.filterCap,
    timeoutMs: limits.filterTimeoutMs,
    bufferCap: limits.logsCap > 0 ? limits.logsCap : 10_000,
  });
  const subscriptions = new SubscriptionManager(deps.format, {
    maxPerConnection: limits.wsSubscriptionsPerConnection,
    maxBufferedBytes: limits.wsSubscriptionBufferBytes,
  });
  app.onCommit((c) => {
    const entries = committedLogs(c);
    filters.onBlock(c.block.hash, entries);
    subscriptions.onBlock(c, entries);
  });
  app.onRewind((keep, forgotten) =>
    filters.onRewind(keep, new Set(forgotten.map((b) => Buffer.from(b.hash).toString('hex')))),
  );
  txs.onAcceptedTx((tx) => {
    filters.onPendingTx(tx);
    subscriptions.onPendingTx(tx);
  });
  filters.start();
  return { index, logs, filters, subscriptions, stop: () => filters.stop() };
}
