// Composition root: config → store → app → pool → engine → servers. The only place that knows concrete classes.
import { readFileSync } from 'node:fs';
import { bytesToHex } from './primitives/hex.ts';
import { TracePrinter } from './tracing/printTraces.ts';
import { dumpState } from './app/dump/anvilState.ts';
import { recordTouchedState, writeDumpFile } from './app/dump/wiring.ts';
import { join } from 'node:path';
import { KestrelApp } from './app/app.ts';
import { Bank } from './app/bank/bank.ts';
import { BankQueries } from './app/bank/query.ts';
import { BankStore } from './app/bank/store.ts';
import { stakingQueryModules } from './app/staking/query/index.ts';
import { CallService } from './app/evm/call.ts';
import { openFork } from './app/fork/openFork.ts';
import { initEngine } from './evm/index.ts';
import { createFastKeccak, createSharedCommon, DEFAULT_FORK as NEW_HOME_FORK } from './app/evm/common.ts';
import { parseGenesis, type GenesisDoc } from './app/genesis.ts';
import { ChainQuery } from './app/query.ts';
import { StateDb } from './app/state/stateDb.ts';
import { headCacheLimits } from './app/state/headCache.ts';
import { cacheLimits, type CacheName } from './config/cacheBudget.ts';
import { analysisCache } from './evm/interpreter/analysis.ts';
import { StatePruner, statePruned } from './app/state/pruner.ts';
import { parseMinGasPrice } from './config/load.ts';
import { appTomlMinerSettings } from './config/minerSettings.ts';
import type { NodeConfig } from './config/schema.ts';
import { consensusMode } from './compose/consensus.ts';
import { startListeners } from './compose/listeners.ts';
import { methodTable, rpcDispatcher } from './compose/rpc.ts';
import { readTomlValue } from './config/appToml.ts';
import { openPoolJournal } from './mempool/durable.ts';
import { QueuedExpiry } from './mempool/expiry.ts';
import { TxPool } from './mempool/pool.ts';
import { TxSubmitter } from './mempool/submit.ts';
import { SenderRecovery } from './mempool/recovery/workers.ts';
import { startFilterServices } from './filters/services.ts';
import { notificationFormat } from './rpc/format/log.ts';
import { DEV_MNEMONIC } from './keys/devAccounts.ts';
import { installDevKeys } from './keystore/dev.ts';
import { cachedDevAccounts } from './keystore/devCache.ts';
import { KeyStore } from './keystore/keystore.ts';
import { homePaths, readAuthTokenFile, readValidatorAddress } from './node/home.ts';
import type { RpcContext } from './rpc/context.ts';
import { FeeOracle } from './rpc/services/feeOracle.ts';
import { NodeSigner } from './rpc/services/signer.ts';
import type { Dispatcher } from './rpc/server/jsonrpc.ts';
import { ChainStore } from './store/chainStore.ts';
import { KvStore } from './store/kv.ts';
import { trieKey } from './store/schema.ts';
import { DEFAULT_SANDBOX_LIMITS } from './tracing/js/limits.ts';
import { TraceService } from './tracing/service.ts';
import { lineLogger, LogSink } from './log/logger.ts';

export const VERSION = '0.1.0';
/** The fork a new home runs (`kestreld init` writes it into genesis); `kestreld version` prints it. */
export const DEFAULT_FORK: string = NEW_HOME_FORK;

/** How long after the first JSON-RPC call the engine's libraries start loading (unless a block or call needs them). */
const ENGINE_WARMUP_DELAY_MS = 50;
/** When no JSON-RPC call came: how long after the listeners are up they start loading. */
const ENGINE_IDLE_WARMUP_MS = 1_000;

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
  // Every cache gets its share of the [cache] budget (config/cacheBudget.ts) and evicts past it.
  const caps = cacheLimits(config.cache.budgetBytes);
  // LevelDB opens on the thread pool (replaying its log into a table and syncing it: milliseconds of disk waits)
  // while this thread reads the genesis, compiles keccak's WebAssembly and reads or derives the dev accounts, none of
  // which needs the store. A failure before the store is in use closes it once it opened.
  const opening = KvStore.open(join(paths.data, 'kestrel.db'), caps.leveldb);
  // Handled here so a failed open is not an unhandled rejection while this thread works; awaited below, it throws.
  opening.catch(() => {});
  let genesisDoc: GenesisDoc;
  let genesis: ReturnType<typeof parseGenesis>;
  let common: ReturnType<typeof createSharedCommon>;
  let devKeys: ReturnType<typeof cachedDevAccounts>;
  let authToken: ReturnType<typeof readAuthTokenFile>;
  try {
    authToken = readAuthTokenFile(config.jsonRpc.authTokenFile);
    genesisDoc = JSON.parse(readFileSync(paths.genesis, 'utf8')) as GenesisDoc;
    genesis = parseGenesis(genesisDoc, config.bech32Prefix);
    const keccak = await createFastKeccak();
    // The fork is the genesis's (a consensus rule): a home made before genesis named one keeps Prague.
    common = createSharedCommon(config.evmChainId, keccak, genesis.fork);
    analysisCache.setMaxBytes(caps.code_analysis);
    // --dev: the dev accounts are derived (not decrypted), or read from what a start derived, and stay unlocked
    // until exit.
    devKeys = config.dev ? cachedDevAccounts(join(paths.data, 'dev-accounts.json'), DEV_MNEMONIC, 10) : [];
  } catch (e) {
    await opening.then((kv) => kv.close()).catch(() => {});
    throw e;
  }
  const kv = await opening;
  try {
    const chainStore = new ChainStore(kv, common, { blocks: caps.blocks, receipts: caps.receipts });
    const stateDb = new StateDb(kv, common, undefined, { trieNodes: caps.trie_nodes, stateViews: caps.state_views });
    const bank = new Bank(await BankStore.open(kv, genesis), stateDb, genesis);
    // Solo: the embedded engine seals blocks. CometBFT: it drives the app over ABCI; local txs are forwarded to it.
    const mode = consensusMode({ config, kv, dataDir: paths.data, logs });
    const pruner =
      config.pruning.mode === 'archive'
        ? undefined
        : new StatePruner(
            kv,
            config.pruning,
            (n) => chainStore.blockByNumber(n)?.header.stateRoot,
            lineLogger(logs.logger('pruning')),
            () => mode.pinnedRoots?.() ?? [],
          );
    stateDb.checkRoots = pruner !== undefined || statePruned(kv);
    const fork = config.fork
      ? await openFork(paths.data, config.fork.url, config.fork.blockNumber, chainStore.forkPoint, caps.fork_history)
      : undefined;
    if (fork) {
      console.log(`forked from ${fork.upstream.url} at block ${fork.point.number} (${bytesToHex(fork.point.hash)})`);
      if (fork.point.chainId !== config.evmChainId) {
        console.warn(
          `fork: this chain's EIP-155 id is ${config.evmChainId}, the upstream's ${fork.point.chainId} ` +
            '(the home was made with another --chain-id): txs signed for the upstream are refused here',
        );
      }
    }
    const app = await KestrelApp.open({
      fork,
      kv,
      chain: chainStore,
      state: stateDb,
      common,
      genesis,
      evmChainId: config.evmChainId,
      minGasPrice: config.minGasPrice,
      etherbase: config.etherbase ?? readValidatorAddress(config.home),
      blockStateBytes: caps.block_state,
      queryModules: [new BankQueries(bank, config.bech32Prefix), ...stakingQueryModules(stateDb, genesis)],
      afterCommit:
        pruner || mode.afterCommit
          ? async (c) => {
              // The snapshot starts first, pinning its root: a sweep keeps the state a snapshot still has to read.
              mode.afterCommit?.(c.block.number, c.block.header.stateRoot);
              await pruner?.afterCommit(c.block.number);
            }
          : undefined,
    });
    // The dev toolkit records the accounts and slots blocks write, so anvil_dumpState can name them.
    const touched = config.devToolkit ? await recordTouchedState(kv, app, genesis) : undefined;
    const chain = new ChainQuery(app, chainStore, stateDb, headCacheLimits(caps.head_state, caps.code));
    // The head-state cache follows each block's changes, so reads at `latest` stay in memory across blocks.
    app.onCommit((c) => {
      if (c.stateChanges) chain.applyHeadChanges(c.block, c.stateChanges);
    });
    const pool = new TxPool({ ...config.mempool, priceBumpPercent: BigInt(config.mempool.priceBumpPercent) });
    const txs = new TxSubmitter(app, chain, pool, () => mode.onPending());
    const recovery =
      config.mempool.recoveryWorkers > 0
        ? new SenderRecovery({ workers: config.mempool.recoveryWorkers, minBatch: config.mempool.recoveryMinBatch })
        : undefined;
    if (recovery) txs.useRecovery(recovery);
    const { dev, syncStatus } = mode.bind({
      app,
      chain,
      chainStore,
      bank,
      pool,
      txs,
      genesisDoc,
      genesis,
      version: VERSION,
      validatorKeyPath: paths.validatorKey,
      recovery,
      restored: async () => {
        stateDb.checkRoots = true;
        await app.reload();
      },
    });
    if (dev && config.autoImpersonate === true) dev.setAutoImpersonate(true);
    if (dev && touched) {
      dev.useStateDump(() => dumpState(stateDb.readView(app.head.header.stateRoot), touched));
      if (config.loadStateFile !== undefined) {
        await dev.loadState(JSON.parse(readFileSync(config.loadStateFile, 'utf8')));
        console.log(`state loaded from ${config.loadStateFile}`);
      }
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
      (n) => chainStore.blockByNumber(n)?.hash,
      {
        gasCap: config.jsonRpc.gasCap,
        timeoutMs: config.jsonRpc.evmTimeoutMs,
        stateBytes: caps.call_state,
      },
      (key) => kv.get(trieKey(key)),
    );
    calls.upstream = fork;
    const keystore = new KeyStore({
      dir: paths.keystore,
      scrypt: { n: config.keystore.scryptN, r: 8, p: config.keystore.scryptP },
    });
    if (config.dev) await installDevKeys(keystore, devKeys);
    const devAccounts = new Set(devKeys.map((k) => Buffer.from(k.address).toString('hex')));
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
    const fees = new FeeOracle(chain, app, BigInt(config.jsonRpc.feeHistoryCap), genesis.fork);
    if (config.printTraces === true) {
      const printer = new TracePrinter(tracing, (l) => console.log(l));
      app.onCommit((c) => printer.onCommit(c));
    }
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
      nodeLog: { setEnabled: (on) => logs.setLevel(on ? config.log.level : 'warn') },
      isDevAccount: (addr) => devAccounts.has(Buffer.from(addr).toString('hex')),
      common,
      fees,
      signer: new NodeSigner({ chainId: config.evmChainId, common, keystore, txs, fees: () => fees.suggestion(), dev }),
      tracing,
      accounts: () => keystore.accounts(),
      keystore,
      logs: events.logs,
      filters: events.filters,
      subscriptions: events.subscriptions,
      syncStatus,
      miner: appTomlMinerSettings(paths.appToml, config, (addr) => (app.etherbase = addr)),
    };
    const table = methodTable(config, dev !== undefined);
    // prom-client loads only when metrics are on (~15 ms of startup otherwise).
    const metrics = config.metrics.enabled
      ? new (await import('./metrics/nodeMetrics.ts')).NodeMetrics({
          poolCounts: () => pool.counts(),
          wsSubscriptions: () => events.subscriptions.size,
          dataDir: paths.data,
          knownMethod: (m) => table.has(m),
          caches: () => {
            const head = chain.headCacheBytes;
            const held: Record<CacheName, number> = {
              trie_nodes: stateDb.trieNodeBytes,
              head_state: head.state,
              code: head.code,
              code_analysis: analysisCache.bytes,
              blocks: chainStore.cacheBytes.blocks,
              receipts: chainStore.cacheBytes.receipts,
              state_views: stateDb.viewBytes,
              call_state: calls.stateBytes,
              block_state: app.blockStateBytes,
              leveldb: kv.memoryBytes(),
              fork_history: fork?.history.bytes ?? 0,
              tx_decode: mode.decodeCacheBytes?.() ?? 0,
            };
            return (Object.keys(held) as CacheName[]).map((name) => ({ name, bytes: held[name], limit: caps[name] }));
          },
        })
      : undefined;
    if (metrics) {
      metrics.setHead(app.head.number);
      app.onCommit((c) => metrics.blockCommitted(c, app.lastCommitSeconds));
    }
    // The engine's libraries (mostly the pairing curves' WebAssembly: ~400 ms of CPU, most of it blocking the event
    // loop) load shortly after the first JSON-RPC call came in, or after a second without one: a client's
    // first poll is not queued behind them. Every block or call that needs them awaits initEngine() itself (a
    // failure surfaces there).
    let warmed = false;
    const warmUp = (): void => {
      if (warmed) return;
      warmed = true;
      initEngine().catch(() => {});
    };
    const served = rpcDispatcher(ctx, table, metrics);
    let called = false;
    const dispatcher: Dispatcher = {
      call(method, params, meta) {
        if (!called) {
          called = true;
          setTimeout(warmUp, ENGINE_WARMUP_DELAY_MS).unref();
        }
        return served.call(method, params, meta);
      },
    };
    const { close: closeListeners, ...ports } = await startListeners({
      config,
      logs,
      dispatcher,
      authToken,
      queries: { query: (path, data, height) => app.query(path, data, height), headHeight: () => app.head.number },
      mode,
      metrics,
    });
    setTimeout(warmUp, ENGINE_IDLE_WARMUP_MS).unref();
    let closed = false;
    return {
      ...ports,
      app,
      dispatcher,
      async close() {
        if (closed) return;
        closed = true;
        await closeListeners();
        // Before the engine stops (a dump waits for the block in progress, which needs it running).
        if (dev && config.dumpStateFile !== undefined) await writeDumpFile(config.dumpStateFile, () => dev.dumpState());
        await mode.stop();
        events.stop();
        // Tracer workers read state through this process's database handle: end them before it closes.
        tracing.close();
        expiry.stop();
        await recovery?.close();
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
