// `kestreld start`: runs the node until SIGINT/SIGTERM (graceful: finish the block, flush, exit 0).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { NodeConfig } from '../../config/schema.ts';
import { DEFAULT_CHAIN_ID } from '../../config/defaults.ts';
import { exposureWarnings } from '../../config/exposure.ts';
import { loadConfig, type FlagOverrides } from '../../config/load.ts';
import { routeConsole } from '../../log/console.ts';
import { LogSink, parseLogFormat, parseLogLevel } from '../../log/logger.ts';
import { defaultHome, homePaths, initHome, isInitialized, readAuthTokenFile } from '../../node/home.ts';
import { errorMessage } from '../../errors/index.ts';
import { setNodeV8Flags } from '../../primitives/workerBoot.ts';

const FLAG_MAP: Record<string, string> = {
  blockTime: 'block-time',
  minimumGasPrices: 'minimum-gas-prices',
  'jsonRpc.address': 'json-rpc.address',
  'jsonRpc.wsAddress': 'json-rpc.ws-address',
  'jsonRpc.api': 'json-rpc.api',
  'jsonRpc.compat': 'json-rpc.compat',
  'jsonRpc.logsCap': 'json-rpc.logs-cap',
  'jsonRpc.blockRangeCap': 'json-rpc.block-range-cap',
  'jsonRpc.filterCap': 'json-rpc.filter-cap',
  'jsonRpc.filterTimeout': 'json-rpc.filter-timeout',
  'jsonRpc.wsSubscriptionBufferBytes': 'json-rpc.ws-subscription-buffer-bytes',
  'jsonRpc.authTokenFile': 'json-rpc.auth-token-file',
  'jsonRpc.httpTimeout': 'json-rpc.http-timeout',
  'jsonRpc.maxOpenConnections': 'json-rpc.max-open-connections',
  'jsonRpc.allowedHosts': 'json-rpc.allowed-hosts',
  'jsonRpc.transport': 'json-rpc.transport',
  'jsonRpc.busyPollUs': 'json-rpc.busy-poll-us',
  'jsonRpc.coalesceWrites': 'json-rpc.coalesce-writes',
  'keystore.scryptN': 'keystore.scrypt-n',
  forkUrl: 'fork.url',
  forkBlockNumber: 'fork.block-number',
  'keystore.scryptP': 'keystore.scrypt-p',
  'mempool.recoveryWorkers': 'mempool.recovery-workers',
  'mempool.recoveryMinBatch': 'mempool.recovery-min-batch',
  'grpc.address': 'grpc.address',
  'rpc.laddr': 'rpc.laddr',
  consensus: 'consensus',
  'abci.laddr': 'abci.laddr',
  'comet.rpc': 'comet.rpc',
  chainId: 'chain-id',
  pruning: 'pruning',
  pruningKeepRecent: 'pruning-keep-recent',
  pruningInterval: 'pruning-interval',
  'stateSync.snapshotInterval': 'state-sync.snapshot-interval',
  'stateSync.snapshotKeepRecent': 'state-sync.snapshot-keep-recent',
  'cache.budgetMb': 'cache.budget-mb',
  'cache.heapGrowthPercent': 'cache.heap-growth-percent',
  metrics: 'metrics',
  'metrics.address': 'metrics.address',
  'log.level': 'log.level',
  'log.format': 'log.format',
};

/** What the logs must never show: the bearer token and the validator's private key. */
function nodeSecrets(config: NodeConfig): string[] {
  const out: string[] = [];
  try {
    out.push(readAuthTokenFile(config.jsonRpc.authTokenFile));
  } catch {
    // startNode reports a missing token file with its own message.
  }
  try {
    const key = JSON.parse(readFileSync(homePaths(config.home).validatorKey, 'utf8')) as { priv_key?: unknown };
    if (typeof key.priv_key === 'string') out.push(key.priv_key);
  } catch {
    // No validator key file: nothing to hide.
  }
  return out;
}

/**
 * The Cosmos chain id a dev home forked from `url` gets: kestrel_<upstream's EIP-155 id>-1 (one eth_chainId call;
 * the fork itself asks again through its own client, with retries, once the node starts).
 */
async function upstreamChainId(url: string): Promise<string> {
  let id: unknown;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(10_000),
    });
    id = ((await res.json()) as { result?: unknown }).result;
  } catch (e) {
    throw new Error(`fork upstream ${url} failed: eth_chainId: ${errorMessage(e)}`);
  }
  if (typeof id !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(id) || BigInt(id) === 0n) {
    throw new Error(`fork upstream ${url} answered eth_chainId with ${JSON.stringify(id)}, not a chain id`);
  }
  return `kestrel_${BigInt(id)}-1`;
}

/** Registers `start`. */
export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run the node (embedded single-validator engine by default)')
    .option('--home <dir>', 'node home directory (default ~/.kestrel, or ~/.kestrel-dev with --dev)')
    .option('--dev', 'development chain: create the home if absent and fund the ten dev accounts', false)
    .option('--chain-id <id>', 'chain id used when --dev creates the home', DEFAULT_CHAIN_ID)
    .option('--load-state <file>', "dev toolkit: load Anvil's state JSON (accounts, code, storage) at start")
    .option('--dump-state <file>', "dev toolkit: write the state as Anvil's JSON at shutdown")
    .option('--auto-impersonate', 'dev toolkit: eth_sendTransaction sends from any address without its key')
    .option('--print-traces', "each mined tx's call trace and Solidity console.log output in the node's log")
    .option('--fork-url <url>', 'dev chain forked from this JSON-RPC endpoint (state fetched on first use)')
    .option('--fork-block-number <n>', 'the upstream block to fork from (default: its latest)')
    .option('--block-time <duration>', '0 = seal as soon as txs are pending; e.g. 1s = seal every second')
    .option('--minimum-gas-prices <coins>', 'minimum gas price, e.g. 0akestrel (overrides app.toml)')
    .option('--json-rpc.address <host:port>', 'JSON-RPC HTTP listen address (default 127.0.0.1:8545)')
    .option('--json-rpc.ws-address <host:port>', 'JSON-RPC WebSocket listen address (default 127.0.0.1:8546)')
    .option('--json-rpc.api <list>', 'enabled namespaces, e.g. eth,net,web3,txpool,debug,trace,ots,personal,miner')
    .option('--json-rpc.compat <mode>', 'none (standard values) or ethermint (values the reference node returned)')
    .option('--json-rpc.logs-cap <n>', 'most logs one eth_getLogs may return (default 10000; 0 = no cap)')
    .option('--json-rpc.block-range-cap <n>', 'most blocks one eth_getLogs may span (default 10000; 0 = no cap)')
    .option('--json-rpc.filter-cap <n>', 'most polling filters installed at once (default 200)')
    .option('--json-rpc.filter-timeout <duration>', 'remove polling filters not polled for this long (default 5m)')
    .option(
      '--json-rpc.ws-subscription-buffer-bytes <n>',
      'unsent bytes before a slow subscription is dropped (default 16 MiB)',
    )
    .option('--json-rpc.http-timeout <duration>', 'time allowed to receive a whole HTTP request (default 30s)')
    .option(
      '--json-rpc.max-open-connections <n>',
      'open connections each of the HTTP and WS servers accepts (default 2000; 0 = no cap)',
    )
    .option(
      '--json-rpc.allowed-hosts <list>',
      'Host header names HTTP answers, comma-separated; IPs always pass; * = any (default localhost)',
    )
    .option(
      '--json-rpc.busy-poll-us <n>',
      'microseconds to keep polling for the next request after an answer before sleeping (default 100; 0 = off)',
    )
    .option(
      '--json-rpc.coalesce-writes <bool>',
      'write the HTTP replies of one event-loop turn together (default true; false for clients that pipeline)',
    )
    .option(
      '--json-rpc.transport <kind>',
      'HTTP/WS back end: auto (uWebSockets.js where its binary loads), uws or node',
    )
    .option(
      '--json-rpc.auth-token-file <path>',
      'bearer token file for personal_/miner_ (default <home>/config/auth.token)',
    )
    .option('--keystore.scrypt-n <n>', 'scrypt cost of new key files (default 262144; 4096 with --dev)')
    .option('--keystore.scrypt-p <p>', 'scrypt parallelism of new key files (default 1; 6 with --dev)')
    .option(
      '--mempool.recovery-workers <n>',
      "worker threads recovering submitted txs' senders (default 0: main thread)",
    )
    .option('--mempool.recovery-min-batch <n>', 'fewest txs of one event-loop turn sent to those workers (default 1)')
    .option('--grpc.address <host:port>', 'gRPC listen address (default 127.0.0.1:9090)')
    .option('--rpc.laddr <url>', 'CometBFT-compatible RPC listen address (default tcp://127.0.0.1:26657)')
    .option('--consensus <engine>', 'solo (default) or cometbft')
    .option('--abci.laddr <url>', 'ABCI listen address for --consensus cometbft (default tcp://127.0.0.1:26658)')
    .option(
      '--comet.rpc <url>',
      "CometBFT's RPC for --consensus cometbft: txs are forwarded there (default tcp://127.0.0.1:26657)",
    )
    .option('--pruning <mode>', 'archive (default: every state kept), default (keep 362880 recent states) or custom')
    .option('--pruning-keep-recent <n>', 'with --pruning custom: keep the states of the N most recent blocks')
    .option(
      '--pruning-interval <n>',
      'with --pruning custom: delete older state every N blocks (default keep-recent/10, 10..1000)',
    )
    .option(
      '--state-sync.snapshot-interval <n>',
      'under CometBFT: take a state-sync snapshot every N blocks (default 0 = none)',
    )
    .option('--state-sync.snapshot-keep-recent <n>', 'snapshots kept (default 2)')
    .option('--cache.budget-mb <n>', "MiB the node's caches may hold together (default 1024)")
    .option(
      '--cache.heap-growth-percent <n>',
      "how far V8's heap may grow past its live data before a full GC, in percent (default 20; 0 = V8's own rule)",
    )
    .option('--metrics', 'serve Prometheus metrics on --metrics.address (default 127.0.0.1:6065; off unless given)')
    .option('--metrics.address <host:port>', 'Prometheus metrics listen address (implies --metrics)')
    .option('--log.level <level>', 'debug, info (default), warn or error')
    .option('--log.format <format>', 'text (default) or json; every line has a level, a time and a module')
    .action(async (opts: Record<string, unknown>, command: Command) => {
      // Until app.toml is read, the flags (or the defaults) decide; every later console line goes through the logger.
      const sink = new LogSink(
        parseLogLevel((opts['log.level'] as string | undefined) ?? 'info'),
        parseLogFormat((opts['log.format'] as string | undefined) ?? 'text'),
      );
      routeConsole(sink);
      const dev = opts.dev === true;
      const home = (opts.home as string | undefined) ?? defaultHome(dev);
      const flags: FlagOverrides = { dev };
      for (const [k, v] of Object.entries(opts)) {
        const name = FLAG_MAP[k];
        if (name && v !== undefined && !(k === 'chainId')) flags[name] = v as string;
      }
      if (!isInitialized(home)) {
        if (!dev)
          throw new Error(`${home} is not initialised: run "kestreld init --home ${home}" first (or use --dev)`);
        // Forking, the chain id is the upstream's unless --chain-id names one (Anvil's rule), so signed txs and
        // wallets made for the upstream work on the fork.
        const chainId =
          opts.forkUrl !== undefined && command.getOptionValueSource('chainId') === 'default'
            ? await upstreamChainId(opts.forkUrl as string)
            : (opts.chainId as string);
        initHome(home, { chainId, dev: true });
        console.log(`created dev home ${home}`);
      }
      const config: NodeConfig = {
        ...loadConfig(home, flags, DEFAULT_CHAIN_ID),
        loadStateFile: opts.loadState as string | undefined,
        dumpStateFile: opts.dumpState as string | undefined,
        autoImpersonate: opts.autoImpersonate === true,
        printTraces: opts.printTraces === true,
      };
      if (
        (config.loadStateFile !== undefined || config.dumpStateFile !== undefined || config.autoImpersonate) &&
        !config.devToolkit
      )
        throw new Error(
          '--load-state, --dump-state and --auto-impersonate need the dev toolkit (--dev or app.toml [dev] toolkit = true)',
        );
      // Before the node allocates: V8 otherwise lets its heap grow to up to 4x what is live under a steady stream of
      // short-lived objects (each block's), and RSS follows the heap, not the caches (see [cache] in app.toml). Set
      // even when 0 (V8's own default, its heuristics): the launcher sets the default first (bin/load-bundle.js
      // START_V8_FLAGS, so the code cache a start writes matches the flags the next one loads it with).
      setNodeV8Flags([`--heap-growing-percent=${config.cache.heapGrowthPercent}`]);
      sink.setLevel(config.log.level);
      sink.format = config.log.format;
      for (const secret of nodeSecrets(config)) sink.redact(secret);
      for (const w of exposureWarnings(config.jsonRpc)) console.warn(w);
      // Loaded here so client commands (query, debug) do not pay for the node's modules at startup.
      const { startNode } = await import('../../main.ts');
      const node = await startNode(config, { log: sink });
      const h = node.app.head;
      console.log(`kestreld started: chain-id ${config.chainId} (EIP-155 ${config.evmChainId}), head #${h.number}`);
      console.log(`JSON-RPC HTTP listening on http://${config.jsonRpc.address.replace(/:\d+$/, '')}:${node.httpPort}`);
      console.log(
        `JSON-RPC WebSocket listening on ws://${config.jsonRpc.wsAddress.replace(/:\d+$/, '')}:${node.wsPort}`,
      );
      console.log(`gRPC listening on ${config.grpcAddress.replace(/:\d+$/, '')}:${node.grpcPort}`);
      if (node.metricsPort !== undefined) {
        console.log(
          `Prometheus metrics on http://${config.metrics.address.replace(/:\d+$/, '')}:${node.metricsPort}/metrics`,
        );
      }
      if (node.abciAddress) {
        console.log(`ABCI listening on ${node.abciAddress} (consensus: CometBFT, RPC ${config.cometRpc})`);
      } else {
        console.log(`CometBFT RPC listening on ${config.rpcLaddr.replace(/:\d+$/, '')}:${node.cometPort}`);
      }
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) {
          console.error(`${signal} again: exiting immediately`);
          process.exit(1);
        }
        stopping = true;
        console.log(`${signal} received: stopping`);
        node.close().then(
          () => process.exit(0),
          (e) => {
            console.error('shutdown failed:', e);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
}
