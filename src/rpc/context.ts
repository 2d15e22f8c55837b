// The services every namespace adapter may use. Built once in main.ts.
import type { KestrelApp } from '../app/app.ts';
import type { CallService } from '../app/evm/call.ts';
import type { ChainQuery } from '../app/query.ts';
import type { StateDb } from '../app/state/stateDb.ts';
import type { Common } from '@ethereumjs/common';
import type { MinerSettings } from '../config/minerSettings.ts';
import type { NodeConfig } from '../config/schema.ts';
import type { FilterManager } from '../filters/filterManager.ts';
import type { LogQuery } from '../filters/logQuery.ts';
import type { SubscriptionManager } from '../filters/subscriptions.ts';
import type { KeyStore } from '../keystore/keystore.ts';
import type { TxPool } from '../mempool/pool.ts';
import type { TxSubmitter } from '../mempool/submit.ts';
import type { TraceService } from '../tracing/service.ts';
import type { Compat } from './format/block.ts';
import type { DevToolkit } from '../consensus/solo/devToolkit.ts';

/** Service context handed to every RPC method. */
export interface RpcContext {
  config: NodeConfig;
  app: KestrelApp;
  chain: ChainQuery;
  calls: CallService;
  pool: TxPool;
  txs: TxSubmitter;
  compat: Compat;
  /** Historical state access (proofs, tracing). */
  state: StateDb;
  /** Shared Common for txs and headers; `vmCommon()` makes a private one for each VM. */
  common: Common;
  vmCommon: () => Common;
  clientVersion: string;
  /** debug_trace*: replay and tracing. */
  tracing: TraceService;
  /** eth_getLogs over the log index; polling filters; WebSocket subscriptions. */
  logs: LogQuery;
  filters: FilterManager;
  subscriptions: SubscriptionManager;
  /** Addresses of keys the node manages (filled by the key store). */
  accounts(): Uint8Array[];
  /** The node's key store: key files, unlocked keys, per-account send locks. */
  keystore: KeyStore;
  /** Catch-up progress under CometBFT (absent: a solo node, always in sync). */
  syncStatus?: { progress(): Promise<{ startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } | false> };
  /** miner_*: the producer settings kept in app.toml. */
  miner: MinerSettings;
  /** The dev toolkit (evm_*, anvil_*, hardhat_*): only under --dev or [dev] toolkit = true, in solo mode. */
  dev?: DevToolkit;
}
