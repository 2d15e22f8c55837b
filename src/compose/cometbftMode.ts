// CometBFT consensus: CometBFT drives the app over ABCI; local txs are forwarded to it (and pooled locally so
// txpool_* sees them); snapshots are kept for peers that state-sync, and offered ones restored.
import { join } from 'node:path';
import { startAbciServer } from '../abci/server.ts';
import { cacheLimits } from '../config/cacheBudget.ts';
import type { NodeConfig } from '../config/schema.ts';
import { CometApplication } from '../consensus/cometbft/application.ts';
import { broadcastTxSync, CometForwarder, cometRpcUrl } from '../consensus/cometbft/forwarder.ts';
import { CometSyncStatus, httpCometCall } from '../consensus/cometbft/syncStatus.ts';
import { lineLogger, type LogSink } from '../log/logger.ts';
import { instrumentAbci, type AbciTimer } from '../metrics/abci.ts';
import { SnapshotRestore } from '../snapshots/restore.ts';
import { SnapshotStore } from '../snapshots/store.ts';
import type { KvStore } from '../store/kv.ts';
import type {
  ConsensusDeps,
  ConsensusEarlyDeps,
  ConsensusMode,
  ConsensusServices,
  ModeListeners,
  ModeServer,
} from './mode.ts';

/** The ABCI server, the forwarder to CometBFT, and the state-sync snapshots. */
export class CometbftMode implements ConsensusMode {
  private readonly config: NodeConfig;
  private readonly logs: LogSink;
  private readonly kv: KvStore;
  private readonly rpcUrl: string;
  private readonly snapshots: SnapshotStore;
  private forwarder?: CometForwarder;
  private cometApp?: CometApplication;

  constructor(early: ConsensusEarlyDeps) {
    this.config = early.config;
    this.logs = early.logs;
    this.kv = early.kv;
    this.rpcUrl = cometRpcUrl(early.config.cometRpc);
    this.snapshots = new SnapshotStore(
      join(early.dataDir, 'snapshots'),
      early.kv,
      early.config.stateSync,
      lineLogger(early.logs.logger('snapshots')),
    );
  }

  /** Starts a state-sync snapshot at each interval height (written in slices between blocks). */
  afterCommit(height: bigint, stateRoot: Uint8Array): void {
    this.snapshots.afterCommit(height, stateRoot);
  }

  /** The root of the snapshot being written, if any. */
  pinnedRoots(): Uint8Array[] {
    return this.snapshots.pinnedRoots();
  }

  /** CometBFT decides when blocks are made; a pooled tx is forwarded by the submit path itself. */
  onPending(): void {}

  decodeCacheBytes(): number {
    return this.cometApp?.decodeCacheBytes ?? 0;
  }

  /** Builds the ABCI application and the forwarder; the submit path hands each accepted tx to the forwarder. */
  bind(d: ConsensusDeps): ConsensusServices {
    if (d.genesis.feeRecipients.size === 0) {
      console.warn(
        "warning: genesis has no app_state.fee_recipients: block fees go to each proposer's consensus address, whose key nobody holds",
      );
    }
    const rpcUrl = this.rpcUrl;
    const fwd = new CometForwarder(d.pool, (raw) => broadcastTxSync(rpcUrl, raw));
    this.forwarder = fwd;
    const recovery = d.recovery;
    const cometApp = new CometApplication({
      app: d.app,
      appHash: (b) => d.bank.appHash(b),
      genesisDoc: d.genesisDoc,
      version: d.version,
      feeRecipients: d.genesis.feeRecipients,
      snapshots: this.snapshots,
      restore: new SnapshotRestore({
        kv: this.kv,
        height: () => d.app.head.number,
        appHashOf: (root) => d.bank.appHashOf(root),
        restored: () => d.restored(),
        log: lineLogger(this.logs.logger('statesync')),
      }),
      log: lineLogger(this.logs.logger('abci')),
      decodeCacheBytes: cacheLimits(this.config.cache.budgetBytes).tx_decode,
      recover: recovery && ((job) => recovery.recover(job)),
      onChecked: (tx) => {
        fwd.markKnown(tx.hash);
        d.txs.adopt(tx);
      },
      onCommitted: (c, rejected) => {
        d.pool.onCommitted(c, rejected);
        fwd.prune();
        fwd.reofferStalled();
        // Queued txs may be executable now. Not awaited: CometBFT holds its mempool lock until its rechecks end.
        setImmediate(() => void fwd.pump());
      },
    });
    this.cometApp = cometApp;
    // A tx sent here was decoded and its sender recovered by the submit path: CometBFT's CheckTx of the same bytes
    // finds it in the decode cache instead of recovering the sender a second time.
    d.txs.useForwarder((tx) => {
      cometApp.seed(tx);
      return fwd.submitted(tx);
    });
    return { syncStatus: new CometSyncStatus(httpCometCall(rpcUrl), () => d.app.head.number) };
  }

  /** Nothing to start before the servers: the forwarder starts once the ABCI server listens. */
  async start(): Promise<void> {}

  /** The ABCI server CometBFT connects to (CometBFT itself serves the CometBFT RPC, on the same default port). */
  async listen(track: <T extends ModeServer>(server: T) => T, timer?: AbciTimer): Promise<ModeListeners> {
    const { cometApp, forwarder } = this;
    if (!cometApp || !forwarder) throw new Error('cometbft consensus used before bind()');
    const server = track(
      await startAbciServer({
        laddr: this.config.abciLaddr,
        app: timer ? instrumentAbci(cometApp, timer) : cometApp,
        // A (re)connecting CometBFT has an empty mempool: offer it this node's pending txs again.
        onConnection: () => forwarder.resend(),
        log: lineLogger(this.logs.logger('abci'), 'warn'),
      }),
    );
    forwarder.start();
    return { cometPort: 0, abciAddress: server.address };
  }

  /** Stops forwarding and abandons a snapshot in progress. */
  async stop(): Promise<void> {
    await this.forwarder?.stop();
    await this.snapshots.stop();
  }
}
