// The node's typed configuration. It is validated once in load.ts; nothing else reads app.toml or process.env.
import type { PruningConfig } from './pruning.ts';
import type { LogFormat, LogLevel } from '../log/logger.ts';

/** JSON-RPC server settings (app.toml [json-rpc]). */
export interface JsonRpcConfig {
  enable: boolean;
  address: string;
  wsAddress: string;
  api: string[];
  gasCap: bigint;
  evmTimeoutMs: number;
  /** Longest per-transaction trace time a caller may ask for (debug_trace* "timeout" is clamped to it). */
  tracerTimeoutCapMs: number;
  /** Heap of one JavaScript tracer's QuickJS sandbox, in bytes. */
  tracerMemoryBytes: number;
  logsCap: number;
  blockRangeCap: number;
  filterCap: number;
  /** Polling filters idle for longer are removed. */
  filterTimeoutMs: number;
  wsSubscriptionsPerConnection: number;
  wsSubscriptionBufferBytes: number;
  feeHistoryCap: number;
  maxBodyBytes: number;
  maxBatchItems: number;
  /** Largest serialized reply to one request or batch (0 = no cap). */
  maxResponseBytes: number;
  /** Open connections per server, HTTP and WS each (0 = no cap). */
  maxOpenConnections: number;
  corsOrigins: string[];
  /** Host header names the HTTP server accepts (IP literals always pass; '*' = any). */
  allowedHosts: string[];
  httpTimeoutMs: number;
  /** HTTP/WS back end: uWebSockets.js where its binary loads ('auto'), or forced. */
  transport: 'auto' | 'uws' | 'node';
  /** Microseconds the event loop keeps polling after an answer before it sleeps (0 = sleep at once). */
  busyPollUs: number;
  /** Write the HTTP replies of one event-loop turn together (uWS back end). */
  coalesceWrites: boolean;
  compat: 'none' | 'ethermint';
  /** File holding the bearer token of the private namespaces (default <home>/config/auth.token). */
  authTokenFile: string;
}

/** Key store settings (app.toml [keystore]). */
export interface KeyStoreConfig {
  /** scrypt cost of new key files (default 262144, 4096 with --dev); r is always 8. */
  scryptN: number;
  scryptP: number;
}

/** Transaction pool bounds and journal (app.toml [mempool]). */
export interface MempoolConfig {
  accountSlots: number;
  globalSlots: number;
  accountQueue: number;
  globalQueue: number;
  lifetimeMs: number;
  priceBumpPercent: number;
  /** Journal accepted txs to <home>/data/txpool.journal and replay it at start. */
  journal: boolean;
  /** fdatasync the journal before acknowledging a tx (survives power loss, not only kill -9). */
  journalFsync: boolean;
  /** Worker threads recovering the senders of submitted txs (0: on the main thread). */
  recoveryWorkers: number;
  /** Smallest batch (the submitted txs of one event-loop turn) handed to the recovery workers. */
  recoveryMinBatch: number;
}

/** Memory the node's caches may hold together (app.toml [cache], --cache.budget-mb). */
export interface CacheConfig {
  /** The whole budget in bytes; cacheBudget.ts splits it between the caches. */
  budgetBytes: number;
  /** V8's heap growing factor past live data, in percent (--heap-growing-percent; 0 = V8's own rule). */
  heapGrowthPercent: number;
}

/** Everything a running node needs to know. */
export interface NodeConfig {
  home: string;
  dev: boolean;
  /** The dev toolkit methods (evm_*, anvil_*, hardhat_*): --dev, or app.toml [dev] toolkit = true. */
  devToolkit: boolean;
  /** --load-state FILE: Anvil's state JSON loaded at start (dev toolkit only). */
  loadStateFile?: string;
  /** --dump-state FILE: the state written there as Anvil's JSON at shutdown (dev toolkit only). */
  dumpStateFile?: string;
  /** --auto-impersonate: eth_sendTransaction sends from any address without its key (dev toolkit only). */
  autoImpersonate?: boolean;
  /** --print-traces: each mined tx's call trace and console.log output in the node's log. */
  printTraces?: boolean;
  /** --fork-url / app.toml [fork]: the upstream a dev chain forks from, at `blockNumber` (default: its latest). */
  fork?: { url: string; blockNumber?: bigint };
  chainId: string;
  evmChainId: bigint;
  evmDenom: string;
  bech32Prefix: string;
  blockTimeMs: number;
  minGasPrice: bigint;
  /** True when --minimum-gas-prices was given on the command line (it then wins over app.toml). */
  minGasPriceFromFlag: boolean;
  consensus: 'solo' | 'cometbft';
  mempool: MempoolConfig;
  /** Fee recipient set with miner_setEtherbase (app.toml [miner] etherbase); undefined: the validator's account. */
  etherbase?: Uint8Array;
  jsonRpc: JsonRpcConfig;
  keystore: KeyStoreConfig;
  grpcAddress: string;
  rpcLaddr: string;
  abciLaddr: string;
  /** CometBFT's RPC (--consensus cometbft): where eth_sendRawTransaction forwards txs (broadcast_tx_sync). */
  cometRpc: string;
  /** State history kept (app.toml pruning / pruning-keep-recent / pruning-interval; archive by default). */
  pruning: PruningConfig;
  /** State-sync snapshots this node takes (app.toml [state-sync]; interval 0 = none). */
  stateSync: { interval: number; keepRecent: number };
  /** The caches' memory budget (app.toml [cache]; 1 GiB by default). */
  cache: CacheConfig;
  /** Prometheus metrics (app.toml [metrics], --metrics, --metrics.address); off by default. */
  metrics: { enabled: boolean; address: string };
  /** Structured logs (app.toml [log], --log.level, --log.format). */
  log: { level: LogLevel; format: LogFormat };
  /** Addresses whose flags were passed explicitly (later features reject them until they exist). */
  explicitFlags: Set<string>;
}
