// The services the namespaces are served from, built once in main.ts. Each namespace module declares the few it
// uses (a Pick of RpcContext), so what a method can reach is visible at its top and checked by the compiler. No
// service comes in as its class: each is a narrow view, either an interface of its own (PoolReader, DevControls) or
// the few members of the class the namespaces call (a Pick, below), so a namespace cannot reach the rest.
import type { KestrelApp } from '../app/app.ts';
import type { AnvilState } from '../app/dump/anvilState.ts';
import type { CallService } from '../app/evm/call.ts';
import type { ChainQuery } from '../app/query.ts';
import type { Common } from '@ethereumjs/common';
import type { MinerSettings } from '../config/minerSettings.ts';
import type { NodeConfig } from '../config/schema.ts';
import type { FilterManager } from '../filters/filterManager.ts';
import type { LogQuery } from '../filters/logQuery.ts';
import type { SubscriptionManager } from '../filters/subscriptions.ts';
import type { KeyStore } from '../keystore/keystore.ts';
import type { ExecTx } from '../app/evm/executor.ts';
import type { PoolTx, SenderTxs } from '../mempool/pool.ts';
import type { SelectRules } from '../mempool/select.ts';
import type { TxSubmitter } from '../mempool/submit.ts';
import type { TraceService } from '../tracing/service.ts';
import type { Compat } from './format/block.ts';
import type { FeeOracle } from './services/feeOracle.ts';
import type { NodeSigner } from './services/signer.ts';

/** What the namespaces read of the block producer: its head, the next block's fees, a preview of the pending block. */
export type ProducerView = Pick<KestrelApp, 'head' | 'nextBaseFee' | 'minGasPrice' | 'previewBlock' | 'etherbase'>;

/** What the namespaces read of the transaction pool (txpool_*, pending lookups, the pending block); never a write. */
export interface PoolReader {
  /** A pooled tx by hash. */
  get(hash: Uint8Array): PoolTx | undefined;
  /** How many txs are executable now and how many wait for a nonce gap. */
  counts(): { pending: number; queued: number };
  /** Every sender's pooled txs. */
  content(): SenderTxs[];
  /** One sender's pooled txs. */
  contentFrom(sender: Uint8Array): SenderTxs;
  /** The txs the next block would take, in order, within `gasLimit`. */
  executable(gasLimit: bigint, rules?: Omit<SelectRules, 'gasLimit'>): ExecTx[];
}

/**
 * The dev toolkit's controls the evm_/anvil_/hardhat_ methods call (consensus/solo/devToolkit.ts implements them):
 * the namespaces see this, not the engine behind it.
 */
export interface DevControls {
  readonly automine: boolean;
  setAutomine(on: boolean): void;
  setIntervalMining(ms: number): void;
  increaseTime(seconds: bigint): bigint;
  setNextBlockTimestamp(ts: bigint): void;
  setBlockTimestampInterval(seconds: bigint): void;
  removeBlockTimestampInterval(): boolean;
  setTime(ts: bigint): bigint;
  mine(blocks: bigint, opts?: { timestamp?: bigint; interval?: bigint; advanceEach?: bigint }): Promise<void>;
  snapshot(): bigint;
  revert(id: bigint): Promise<boolean>;
  reset(refork?: { url?: string; blockNumber?: bigint }): Promise<void>;
  setBalance(addr: Uint8Array, balance: bigint): Promise<void>;
  setNonce(addr: Uint8Array, nonce: bigint): Promise<void>;
  setCode(addr: Uint8Array, code: Uint8Array): Promise<void>;
  setStorageAt(addr: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void>;
  impersonate(addr: Uint8Array): void;
  stopImpersonating(addr: Uint8Array): void;
  setAutoImpersonate(on: boolean): void;
  dumpState(): Promise<AnvilState>;
  loadState(json: unknown): Promise<void>;
  dropTransaction(hash: Uint8Array): Promise<boolean>;
}

/** Chain reads: blocks, receipts, transactions and state at a block. */
export type ChainReader = Pick<
  ChainQuery,
  | 'account'
  | 'blockByHash'
  | 'blockByNumber'
  | 'code'
  | 'findBlock'
  | 'firstBlock'
  | 'head'
  | 'minedTx'
  | 'receipts'
  | 'resolveBlock'
  | 'stateAt'
  | 'storage'
>;
/** Calls against a block's state: eth_call, estimateGas, access lists, simulateV1. */
export type CallRunner = Pick<
  CallService,
  'call' | 'callSync' | 'createAccessList' | 'estimateGas' | 'estimateGasSync' | 'simulate' | 'readForked' | 'upstream'
>;
/** The submit path: raw and node-signed txs in, inclusion waits, the pending nonce. */
export type TxSubmit = Pick<TxSubmitter, 'submitRaw' | 'submitUnsigned' | 'inclusion' | 'minedWithin' | 'pendingNonce'>;
/** debug_trace* and trace_*: replays of mined txs and blocks, traced calls. */
export type Tracing = Pick<
  TraceService,
  'traceTransaction' | 'traceBlock' | 'traceCall' | 'parityTransaction' | 'parityBlock' | 'parityCall'
>;
/** eth_getLogs over the log index. */
export type LogReader = Pick<LogQuery, 'getLogs' | 'resolveRange'>;
/** Polling filters. */
export type Filters = Pick<
  FilterManager,
  'newBlockFilter' | 'newLogFilter' | 'newPendingTxFilter' | 'changes' | 'filterLogs' | 'uninstall'
>;
/** WebSocket subscriptions. */
export type Subscriptions = Pick<SubscriptionManager, 'subscribe' | 'unsubscribe'>;
/** Key files and unlocked keys (personal_*, eth_accounts). */
export type Keys = Pick<
  KeyStore,
  | 'accounts'
  | 'decrypt'
  | 'exclusive'
  | 'importKey'
  | 'isUnlocked'
  | 'lock'
  | 'newAccount'
  | 'unlock'
  | 'unlockedKey'
  | 'wallets'
>;

/** Every service a namespace may ask for. */
export interface RpcContext {
  config: NodeConfig;
  app: ProducerView;
  chain: ChainReader;
  calls: CallRunner;
  pool: PoolReader;
  txs: TxSubmit;
  compat: Compat;
  /** Shared Common for txs and headers. */
  common: Common;
  clientVersion: string;
  /** Gas price and priority fee suggestions, fee history. */
  fees: FeeOracle;
  /** Signing with the node's keys (eth_sign*, eth_/personal_sendTransaction, *_signTransaction). */
  signer: NodeSigner;
  /** debug_trace*: replay and tracing. */
  tracing: Tracing;
  /** eth_getLogs over the log index; polling filters; WebSocket subscriptions. */
  logs: LogReader;
  filters: Filters;
  subscriptions: Subscriptions;
  /** Addresses of keys the node manages (filled by the key store). */
  accounts(): Uint8Array[];
  /** The node's key store: key files, unlocked keys, per-account send locks. */
  keystore: Keys;
  /** Catch-up progress under CometBFT (absent: a solo node, always in sync). */
  syncStatus?: { progress(): Promise<{ startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } | false> };
  /** miner_*: the producer settings kept in app.toml. */
  miner: MinerSettings;
  /** The dev toolkit (evm_*, anvil_*, hardhat_*): only under --dev or [dev] toolkit = true, in solo mode. */
  dev?: DevControls;
  /** anvil_setLoggingEnabled: off mutes the node's info lines (the --print-traces output among them). */
  nodeLog?: { setEnabled(on: boolean): void };
  /** Whether `addr` is one of the --dev accounts (always false without --dev): personal_sign needs no token for them. */
  isDevAccount(addr: Uint8Array): boolean;
}

/** The services one namespace module uses: `Needs<'chain' | 'pool'>`. */
export type Needs<K extends keyof RpcContext> = Pick<RpcContext, K>;
