// What a consensus mode is, apart from the modes themselves: the interface startNode composes and the deps each
// mode is built from. Its own module so that the modes (soloMode.ts, cometbftMode.ts) and the chooser
// (consensus.ts) all import it and none imports another.
import type { KestrelApp } from '../app/app.ts';
import type { Bank } from '../app/bank/bank.ts';
import type { Genesis, GenesisDoc } from '../app/genesis.ts';
import type { ChainQuery } from '../app/query.ts';
import type { NodeConfig } from '../config/schema.ts';
import type { DevToolkit } from '../consensus/solo/devToolkit.ts';
import type { SyncProgress } from '../consensus/cometbft/syncStatus.ts';
import type { LogSink } from '../log/logger.ts';
import type { TxPool } from '../mempool/pool.ts';
import type { TxSubmitter } from '../mempool/submit.ts';
import type { SenderRecovery } from '../mempool/recovery/workers.ts';
import type { AbciTimer } from '../metrics/abci.ts';
import type { ChainStore } from '../store/chainStore.ts';
import type { KvStore } from '../store/kv.ts';

/** What a mode needs before the app opens. */
export interface ConsensusEarlyDeps {
  config: NodeConfig;
  kv: KvStore;
  dataDir: string;
  logs: LogSink;
}

/** What a mode's engine and submit path are built from, once the app is open. */
export interface ConsensusDeps {
  app: KestrelApp;
  chain: ChainQuery;
  chainStore: ChainStore;
  bank: Bank;
  pool: TxPool;
  txs: TxSubmitter;
  genesisDoc: GenesisDoc;
  genesis: Genesis;
  version: string;
  validatorKeyPath: string;
  /** The node's sender-recovery workers (absent: none configured): CometBFT mode recovers blocks' senders there. */
  recovery?: SenderRecovery;
  /** Called once a state-sync restore has written its snapshot: reopen the app at that height. */
  restored(): Promise<void>;
}

/** The namespaces' extras a mode provides. */
export interface ConsensusServices {
  /** The dev toolkit (evm_*, anvil_*, hardhat_*): solo mode with the toolkit on. */
  dev?: DevToolkit;
  /** Catch-up progress (CometBFT); absent: always in sync. */
  syncStatus?: { progress(): Promise<SyncProgress | false> };
}

/** A server a mode started; closed by startNode with the others. */
export interface ModeServer {
  close(): Promise<void>;
}

/** Where a mode's servers listen. */
export interface ModeListeners {
  /** The CometBFT-style RPC port (solo); 0 where CometBFT itself serves it. */
  cometPort: number;
  /** The ABCI server's address (cometbft). */
  abciAddress?: string;
}

/** One way of making blocks, with its submit path and servers. */
export interface ConsensusMode {
  /** After each commit, before the pruner's sweep (which could remove state a snapshot still reads). */
  afterCommit?(height: bigint, stateRoot: Uint8Array): void;
  /** State roots this mode is still reading (a snapshot being written): the pruner keeps them. */
  pinnedRoots?(): Uint8Array[];
  /** The submit path's signal that a tx entered the pool. */
  onPending(): void;
  /** Estimated bytes of this mode's decoded-tx cache (cometbft), for the metrics. */
  decodeCacheBytes?(): number;
  /** Builds the engine and wires the submit path; returns the services the namespaces get from this mode. */
  bind(deps: ConsensusDeps): ConsensusServices;
  /** Starts making blocks (solo: block 1 on a fresh chain, then the timer); called before the servers bind. */
  start(): Promise<void>;
  /** Starts this mode's servers; `track` registers each for closing on a later failure; `timer` times ABCI calls. */
  listen(track: <T extends ModeServer>(server: T) => T, timer?: AbciTimer): Promise<ModeListeners>;
  /** Finishes the block in progress / stops forwarding. */
  stop(): Promise<void>;
}
