// Composition root: config → store → app → pool → engine → servers. The only place that knows concrete classes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KestrelApp } from './app/app.ts';
import { Bank } from './app/bank/bank.ts';
import { BankQueries } from './app/bank/query.ts';
import { BankStore } from './app/bank/store.ts';
import { CallService } from './app/evm/call.ts';
import { initEngine } from './evm/index.ts';
import { createChainCommon, createFastKeccak, createSharedCommon } from './app/evm/common.ts';
import { parseGenesis, type GenesisDoc } from './app/genesis.ts';
import { ChainQuery } from './app/query.ts';
import { StateDb } from './app/state/stateDb.ts';
import { SnapshotRestore } from './snapshots/restore.ts';
import { SnapshotStore } from './snapshots/store.ts';
import { StatePruner, statePruned } from './app/state/pruner.ts';
import { parseMinGasPrice } from './config/load.ts';
import { appTomlMinerSettings } from './config/minerSettings.ts';
import type { NodeConfig } from './config/schema.ts';
import { readValidatorIdentity } from './cometrpc/identity.ts';
import { startCometRpcServer } from './cometrpc/server.ts';
import { DevToolkit } from './consensus/solo/devToolkit.ts';
import { SoloEngine } from './consensus/solo/engine.ts';
import { startAbciServer, type AbciServer } from './abci/server.ts';
import { CometApplication } from './consensus/cometbft/application.ts';
import { broadcastTxSync, CometForwarder, cometRpcUrl } from './consensus/cometbft/forwarder.ts';
import { CometSyncStatus, httpCometCall } from './consensus/cometbft/syncStatus.ts';
import { startBankGrpcServer } from './grpc/bankQuery.ts';
import { readTomlValue } from './config/appToml.ts';
import { openPoolJournal } from './mempool/durable.ts';
import { QueuedExpiry } from './mempool/expiry.ts';
import { TxPool } from './mempool/pool.ts';
import { TxSubmitter } from './mempool/submit.ts';
import { startFilterServices } from './filters/services.ts';
import { notificationFormat } from './rpc/format/log.ts';
import { deriveAccounts, DEV_MNEMONIC } from './keys/devAccounts.ts';
import { installDevKeys } from './keystore/dev.ts';
import { KeyStore } from './keystore/keystore.ts';
import { homePaths, readAuthTokenFile, readValidatorAddress } from './node/home.ts';
import type { RpcContext } from './rpc/context.ts';
import { debugNamespace } from './rpc/namespaces/debug/index.ts';
import { devNamespaces } from './rpc/namespaces/dev/index.ts';
import { ethNamespace } from './rpc/namespaces/eth/index.ts';
import { minerNamespace } from './rpc/namespaces/miner/index.ts';
import { netNamespace } from './rpc/namespaces/net/index.ts';
import { personalNamespace } from './rpc/namespaces/personal/index.ts';
import { txpoolNamespace } from './rpc/namespaces/txpool/index.ts';
import { web3Namespace } from './rpc/namespaces/web3/index.ts';
import { buildMethodTable, createDispatcher } from './rpc/registry.ts';
import type { Dispatcher } from './rpc/server/jsonrpc.ts';
import { chooseTransport, startHttpTransport, startWsTransport, type RunningServer } from './rpc/server/transport.ts';
import { ChainStore } from './store/chainStore.ts';
import { KvStore } from './store/kv.ts';
import { trieKey } from './store/schema.ts';
import { DEFAULT_SANDBOX_LIMITS } from './tracing/js/limits.ts';
import { TraceService } from './tracing/service.ts';
import { lineLogger, LogSink } from './log/logger.ts';
import { instrumentAbci } from './metrics/abci.ts';
import { rejectReason } from './metrics/rejectReason.ts';
import { startMetricsServer, type MetricsServer } from './metrics/server.ts';

export const VERSION = '0.1.0';

/** How long after the listeners are up the engine's libraries start loading (unless a block or call needs them first). */
const ENGINE_WARMUP_DELAY_MS = 100;

/** The methods whose failures are admission refusals (counted by reason in the metrics). */
const SUBMIT_METHODS = new Set(['eth_sendRawTransaction', 'eth_sendTransaction', 'personal_sendTransaction']);

/** A running node. */
export interface RunningNode {
  httpPort: number;
  wsPort: number;
  grpcPort: number;
  /** Port of the CometBFT-compatible RPC (solo mode; 0 under --consensus cometbft, where CometBFT serves it). */
  cometPort: number;
  /** Where the ABCI server listens (--consensus cometbft only). */
  abciAddress?: string;
  /** Port of the Prometheus metrics (--metrics only). */
  metricsPort?: number;
  app: KestrelApp;
  /** The JSON-RPC dispatcher the transports call (in-process benches drive it without a socket). */
  dispatcher: Dispatcher;
  /** Graceful stop: servers first, then the engine finishes its block, then the database closes. */
  close(): Promise<void>;
}

function splitHostPort(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`invalid address "${addr}": expected host:port`);
  const port = Number(addr.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port in "${addr}"`);
  return { host: addr.slice(0, i).replace(/^\[|\]$/g, ''), port };
}

/**
 * The client version string, in geth's layout. With the dev toolkit it starts with "anvil-compatible ": dev tools
 * (hardhat-network-helpers) serve their helpers only to a node whose version names Hardhat or Anvil.
 */
export function clientVersion(devToolkit = false): string {
  const v = `kestrel/v${VERSION}/${process.platform}-${process.arch}/node${process.versions.node}`;
  return devToolkit ? `anvil-compatible ${v}` : v;
}

/** miner_setGasPrice writes app.toml, but a --minimum-gas-prices flag wins: say so at start when they differ. */
function warnIfFlagOverridesGasPrice(config: NodeConfig, appToml: string): void {
  if (!config.minGasPriceFromFlag) return;
  const inFile = readTomlValue(appToml, null, 'minimum-gas-prices');
  if (typeof inFile !== 'string' || parseMinGasPrice(inFile, config.evmDenom) === config.minGasPrice) return;
  console.warn(
    `warning: --minimum-gas-prices overrides minimum-gas-prices = "${inFile}" in app.toml (set e.g. by miner_setGasPrice); ` +
      `the node uses ${config.minGasPrice}${config.evmDenom}`,
  );
}

/** Starts a node from a loaded configuration (the home must be initialised). */
export async function startNode(config: NodeConfig, opts: { log?: LogSink } = {}): Promise<RunningNode> {
  const logs = opts.log ?? new LogSink(config.log.level, config.log.format);
  const paths = homePaths(config.home);
  const authToken = readAuthTokenFile(config.jsonRpc.authTokenFile);
  const genesisDoc = JSON.parse(readFileSync(paths.genesis, 'utf8')) as GenesisDoc;
  const genesis = parseGenesis(genesisDoc, config.bech32Prefix);
  const keccak = await createFastKeccak();
  const common = createSharedCommon(config.evmChainId, keccak);
  const vmCommon = () => createChainCommon(config.evmChainId, keccak);
  const kv = await KvStore.open(join(paths.data, 'kestrel.db'));
  try {
    const chainStore = new ChainStore(kv, common);
    const stateDb = new StateDb(kv, common);
    const bank = new Bank(await BankStore.open(kv, genesis), stateDb, genesis);
    const pruner =
      config.pruning.mode === 'archive'
        ? undefined
        : new StatePruner(
            kv,
            config.pruning,
            (n) => chainStore.blockByNumber(n)?.header.stateRoot,
            lineLogger(logs.logger('pruning')),
          );
    stateDb.checkRoots = pruner !== undefined || statePruned(kv);
    const snapshots =
      config.consensus === 'cometbft'
        ? new SnapshotStore(join(paths.data, 'snapshots'), kv, config.stateSync, lineLogger(logs.logger('snapshots')))
        : undefined;
    const app = await KestrelApp.open({
      kv,
      chain: chainStore,
      state: stateDb,
      common,
      vmCommon,
      genesis,
      evmChainId: config.evmChainId,
      minGasPrice: config.minGasPrice,
      etherbase: config.etherbase ?? readValidatorAddress(config.home),
      queryModules: [new BankQueries(bank, config.bech32Prefix)],
      afterCommit:
        pruner || snapshots
          ? async (c) => {
              // The snapshot first: a sweep could remove state the snapshot still has to read.
              snapshots?.afterCommit(c.block.number, c.block.header.stateRoot);
              await pruner?.afterCommit(c.block.number);
            }
          : undefined,
    });
    const chain = new ChainQuery(app, chainStore, stateDb);
    // The head-state cache follows each block's changes, so reads at `latest` stay in memory across blocks.
    app.onCommit((c) => {
      if (c.stateChanges) chain.applyHeadChanges(c.block, c.stateChanges);
    });
    const pool = new TxPool({ ...config.mempool, priceBumpPercent: BigInt(config.mempool.priceBumpPercent) });
    // Solo: the embedded engine seals blocks. CometBFT: it drives the app over ABCI; local txs are forwarded to it.
    const engine = config.consensus === 'solo' ? new SoloEngine(app, pool, config.blockTimeMs) : undefined;
    const txs = new TxSubmitter(app, chain, pool, () => engine?.notify());
    if (engine) txs.useSealing((hash) => engine.settled(hash));
    let forwarder: CometForwarder | undefined;
    let cometApp: CometApplication | undefined;
    if (config.consensus === 'cometbft') {
      if (genesis.feeRecipients.size === 0) {
        console.warn(
          "warning: genesis has no app_state.fee_recipients: block fees go to each proposer's consensus address, whose key nobody holds",
        );
      }
      const rpcUrl = cometRpcUrl(config.cometRpc);
      const fwd = new CometForwarder(pool, (raw) => broadcastTxSync(rpcUrl, raw));
      forwarder = fwd;
      txs.useForwarder((tx) => fwd.submitted(tx));
      cometApp = new CometApplication({
        app,
        appHash: (b) => bank.appHash(b),
        genesisDoc,
        version: VERSION,
        feeRecipients: genesis.feeRecipients,
        snapshots,
        restore: new SnapshotRestore({
          kv,
          height: () => app.head.number,
          appHashOf: (root) => bank.appHashOf(root),
          restored: async () => {
            stateDb.checkRoots = true;
            await app.reload();
          },
          log: lineLogger(logs.logger('statesync')),
        }),
        log: lineLogger(logs.logger('abci')),
        onChecked: (tx) => {
          fwd.markKnown(tx.hash);
          txs.adopt(tx);
        },
        onCommitted: (c, rejected) => {
          pool.onCommitted(c, rejected);
          fwd.prune();
          // Queued txs may be executable now. Not awaited: CometBFT holds its mempool lock until its rechecks end.
          setImmediate(() => void fwd.pump());
        },
      });
    }
    warnIfFlagOverridesGasPrice(config, paths.appToml);
    const journal = config.mempool.journal
      ? await openPoolJournal(join(paths.data, 'txpool.journal'), pool, txs, config.mempool.journalFsync)
      : undefined;
    if (journal && journal.restored + journal.settled + journal.dropped > 0) {
      console.log(
        `txpool: ${journal.restored} tx(s) restored from the journal, ${journal.settled} already mined or replaced, ` +
          `${journal.dropped} no longer valid`,
      );
    }
    const expiry = new QueuedExpiry(pool);
    expiry.start();
    const calls = new CallService(
      common,
      vmCommon,
      stateDb,
      (n) => chainStore.blockByNumber(n)?.hash,
      {
        gasCap: config.jsonRpc.gasCap,
        timeoutMs: config.jsonRpc.evmTimeoutMs,
      },
      (key) => kv.get(trieKey(key)),
    );
    const keystore = new KeyStore({
      dir: paths.keystore,
      scrypt: { n: config.keystore.scryptN, r: 8, p: config.keystore.scryptP },
    });
    // --dev: the dev accounts are derived (not decrypted) on each start and stay unlocked until exit.
    if (config.dev) await installDevKeys(keystore, deriveAccounts(DEV_MNEMONIC, 10));
    const events = await startFilterServices({
      kv,
      chainStore,
      app,
      txs,
      limits: config.jsonRpc,
      format: notificationFormat(config.jsonRpc.compat),
      log: (m) => console.log(m),
    });
    const tracing = new TraceService({
      common,
      chain,
      calls,
      hashOf: (n) => chainStore.blockByNumber(n)?.hash,
      // Tracers read state synchronously; trie nodes and code are content-addressed, so direct reads are safe.
      readNode: (key) => kv.get(trieKey(key)),
      limits: {
        maxTimeoutMs: config.jsonRpc.tracerTimeoutCapMs,
        sandbox: { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: config.jsonRpc.tracerMemoryBytes },
      },
    });
    const dev = engine && config.devToolkit ? new DevToolkit(app, engine, pool, txs) : undefined;
    const ctx: RpcContext = {
      config,
      app,
      chain,
      calls,
      pool,
      txs,
      compat: config.jsonRpc.compat,
      clientVersion: clientVersion(dev !== undefined),
      dev,
      state: stateDb,
      common,
      vmCommon,
      tracing,
      accounts: () => keystore.accounts(),
      keystore,
      logs: events.logs,
      filters: events.filters,
      subscriptions: events.subscriptions,
      syncStatus: cometApp
        ? new CometSyncStatus(httpCometCall(cometRpcUrl(config.cometRpc)), () => app.head.number)
        : undefined,
      miner: appTomlMinerSettings(paths.appToml, config, (addr) => (app.etherbase = addr)),
    };
    const table = buildMethodTable(
      {
        eth: ethNamespace,
        net: netNamespace,
        web3: web3Namespace,
        personal: personalNamespace,
        txpool: txpoolNamespace,
        miner: minerNamespace,
        debug: debugNamespace,
        ...devNamespaces,
      },
      dev ? [...config.jsonRpc.api, ...Object.keys(devNamespaces)] : config.jsonRpc.api,
    );
    // prom-client loads only when metrics are on (~15 ms of startup otherwise).
    const metrics = config.metrics.enabled
      ? new (await import('./metrics/nodeMetrics.ts')).NodeMetrics({
          poolCounts: () => pool.counts(),
          wsSubscriptions: () => events.subscriptions.size,
          dataDir: paths.data,
          knownMethod: (m) => table.has(m),
        })
      : undefined;
    if (metrics) {
      metrics.setHead(app.head.number);
      app.onCommit((c) => metrics.blockCommitted(c, app.lastCommitSeconds));
    }
    const dispatcher = metrics
      ? metrics.rpc.instrument(createDispatcher(ctx, table), (method, e) => {
          if (SUBMIT_METHODS.has(method)) metrics.txRejected(rejectReason(e));
        })
      : createDispatcher(ctx, table);
    const limits = {
      maxBodyBytes: config.jsonRpc.maxBodyBytes,
      maxBatchItems: config.jsonRpc.maxBatchItems,
      maxResponseBytes: config.jsonRpc.maxResponseBytes,
    };
    const maxOpenConnections = config.jsonRpc.maxOpenConnections;
    const transport = chooseTransport(config.jsonRpc.transport, { connectionCap: maxOpenConnections > 0 });
    console.log(`JSON-RPC transport: ${transport.kind}: ${transport.reason}`);
    await engine?.sealFirstBlock(genesis.time);
    engine?.start();
    const http = splitHostPort(config.jsonRpc.address);
    const ws = splitHostPort(config.jsonRpc.wsAddress);
    // HTTP JSON-RPC binds last: clients (and the tests) take its first answer to mean the node is ready, so every
    // other listener must already accept connections by then. A failure closes what was already started.
    const started: { close(): Promise<void> }[] = [];
    const track = <T extends { close(): Promise<void> }>(server: T): T => (started.push(server), server);
    let httpServer: RunningServer;
    let wsServer: RunningServer;
    let grpcServer: Awaited<ReturnType<typeof startBankGrpcServer>>;
    let abciServer: AbciServer | undefined;
    let cometServer: Awaited<ReturnType<typeof startCometRpcServer>> | undefined;
    let metricsServer: MetricsServer | undefined;
    try {
      if (metrics) {
        const at = splitHostPort(config.metrics.address);
        metricsServer = track(
          await startMetricsServer(at.host, at.port, () => metrics.page(), lineLogger(logs.logger('metrics'), 'error')),
        );
      }
      wsServer = track(
        await startWsTransport(transport, {
          host: ws.host,
          port: ws.port,
          dispatcher,
          limits,
          authToken,
          corsOrigins: config.jsonRpc.corsOrigins,
          maxOpenConnections,
          // A connection whose client stopped reading is closed well past the point where its subscriptions were dropped.
          maxBufferedBytes: Math.max(64 * 1024 * 1024, 4 * config.jsonRpc.wsSubscriptionBufferBytes),
          log: lineLogger(logs.logger('rpc'), 'error'),
        }),
      );
      const query = (path: string, data: Uint8Array, height: bigint) => app.query(path, data, height);
      grpcServer = track(await startBankGrpcServer(config.grpcAddress, { query, headHeight: () => app.head.number }));
      if (cometApp) {
        // A (re)connecting CometBFT has an empty mempool: offer it this node's pending txs again.
        const onConnection = () => forwarder?.resend();
        abciServer = track(
          await startAbciServer({
            laddr: config.abciLaddr,
            app: metrics ? instrumentAbci(cometApp, metrics) : cometApp,
            onConnection,
            log: lineLogger(logs.logger('abci'), 'warn'),
          }),
        );
      }
      const validator = readValidatorIdentity(paths.validatorKey);
      // Under CometBFT, CometBFT itself serves this RPC (on the same default port).
      cometServer = abciServer
        ? undefined
        : track(
            await startCometRpcServer(config.rpcLaddr, {
              chainId: config.chainId,
              moniker: 'kestrel',
              version: VERSION,
              rpcAddress: config.rpcLaddr,
              nodeId: validator.address,
              validator: { ...validator, votingPower: 10n },
              head: () => app.head,
              blockByNumber: (n) => chain.blockByNumber(n),
              appHash: (b) => bank.appHash(b),
              query,
              submitTx: async (raw) => void (await txs.submitRaw(raw)),
              txByCometHash: (sha) => {
                const hash = chainStore.txHashByCometHash(sha);
                const mined = hash && chain.minedTx(hash);
                return mined ? { block: mined.block, index: mined.index } : undefined;
              },
              receipts: (b) => chain.receipts(b),
              onBlock: (fn) => app.onCommit((c) => fn(c.block, c.receipts)),
            }),
          );
      httpServer = track(
        await startHttpTransport(transport, {
          host: http.host,
          port: http.port,
          dispatcher,
          limits,
          corsOrigins: config.jsonRpc.corsOrigins,
          authToken,
          requestTimeoutMs: config.jsonRpc.httpTimeoutMs,
          maxOpenConnections,
          allowedHosts: config.jsonRpc.allowedHosts,
          log: lineLogger(logs.logger('rpc'), 'error'),
        }),
      );
    } catch (e) {
      await Promise.allSettled(started.map((server) => server.close()));
      await engine?.stop();
      throw e;
    }
    forwarder?.start();
    // The engine's libraries (about 100 ms of CPU, mostly WebAssembly) load shortly after the listeners are up, not
    // at once: a client's first poll then is not queued behind them. Nothing before the first block or call needs
    // them, and those await initEngine() themselves (a failure surfaces there).
    setTimeout(() => initEngine().catch(() => {}), ENGINE_WARMUP_DELAY_MS).unref();
    let closed = false;
    return {
      httpPort: httpServer.port,
      wsPort: wsServer.port,
      grpcPort: grpcServer.port,
      cometPort: cometServer?.port ?? 0,
      abciAddress: abciServer?.address,
      metricsPort: metricsServer?.port,
      app,
      dispatcher,
      async close() {
        if (closed) return;
        closed = true;
        await Promise.allSettled([
          httpServer.close(),
          wsServer.close(),
          grpcServer.close(),
          cometServer?.close(),
          abciServer?.close(),
          metricsServer?.close(),
        ]);
        await forwarder?.stop();
        await engine?.stop();
        events.stop();
        // Tracer workers read state through this process's database handle: end them before it closes.
        tracing.close();
        expiry.stop();
        await journal?.journal.close();
        keystore.close();
        await kv.close();
      },
    };
  } catch (e) {
    await kv.close().catch(() => {});
    throw e;
  }
}
