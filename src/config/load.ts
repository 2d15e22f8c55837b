// Builds the typed NodeConfig from defaults, <home>/config/app.toml and command-line flags (in that order).
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parseEvmChainId } from './chainId.ts';
import { DEFAULT_BECH32_PREFIX, DEFAULT_EVM_DENOM, defaultAppToml, ALL_NAMESPACES } from './defaults.ts';
import { parseDurationMs } from './durations.ts';
import { pruningConfig } from './pruning.ts';
import { parseLogFormat, parseLogLevel } from '../log/logger.ts';
import type { NodeConfig } from './schema.ts';

/** Where the metrics are served when on (Ethermint's default). */
export const DEFAULT_METRICS_ADDRESS = '127.0.0.1:6065';

/** Command-line overrides, keyed by flag name without dashes (e.g. "json-rpc.address"). */
export type FlagOverrides = Record<string, string | boolean | undefined>;

type Toml = Record<string, unknown>;

function section(t: Toml, name: string): Toml {
  const v = t[name];
  return v && typeof v === 'object' ? (v as Toml) : {};
}

function str(v: unknown, key: string): string {
  if (typeof v !== 'string') throw new Error(`config: ${key} must be a string`);
  return v;
}

/**
 * [mempool] recovery-workers: a count, or "auto": one worker on a machine with a second core (measured on 2
 * cores: the main thread's CPU per sent tx 15-20% lower, tx/s not lower; more workers gained nothing there, a
 * turn's batch being a few txs), none on one core.
 */
function recoveryWorkers(v: unknown): number {
  if (v === 'auto') return availableParallelism() >= 2 ? 1 : 0;
  return int(v, 'mempool.recovery-workers');
}

function int(v: unknown, key: string): number {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new Error(`config: ${key} must be a non-negative integer`);
  }
  return n;
}

/** [fork] url / block-number (or --fork-url / --fork-block-number): no url, no fork. */
function forkOf(url: unknown, block: unknown): { fork?: NodeConfig['fork'] } {
  if (url === undefined || url === '') return {};
  const u = str(url, 'fork.url');
  if (!/^https?:\/\//.test(u)) throw new Error('config: fork.url must be an http(s) URL');
  if (block === undefined) return { fork: { url: u } };
  return { fork: { url: u, blockNumber: BigInt(int(block, 'fork.block-number')) } };
}

/** Busy-polling beyond 10 ms would only burn CPU: a client that waits that long is not waiting on the loop. */
function busyPollUs(v: unknown): number {
  const n = int(v, 'json-rpc.busy-poll-us');
  if (n > 10_000) throw new Error('config: json-rpc.busy-poll-us must be at most 10000');
  return n;
}

function bool(v: unknown, key: string): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new Error(`config: ${key} must be true or false`);
}

function optionalInt(v: unknown, key: string): number | undefined {
  return v === undefined || v === '' ? undefined : int(v, key);
}

function positive(n: number, key: string): number {
  if (n <= 0) throw new Error(`config: ${key} must be greater than zero`);
  return n;
}

/** Below this the caches could not hold one block's working set: the node would thrash rather than run. */
const MIN_CACHE_BUDGET_MB = 64;

/** [cache] budget-mb and heap-growth-percent (or their --cache.* flags). */
function cacheConfig(budget: unknown, growth: unknown): NodeConfig['cache'] {
  const mb = int(budget, 'cache.budget-mb');
  if (mb < MIN_CACHE_BUDGET_MB) throw new Error(`config: cache.budget-mb must be at least ${MIN_CACHE_BUDGET_MB}`);
  const heapGrowthPercent = int(growth ?? 20, 'cache.heap-growth-percent');
  if (heapGrowthPercent > 1000) throw new Error('config: cache.heap-growth-percent must be at most 1000');
  return { budgetBytes: mb * 1024 * 1024, heapGrowthPercent };
}

/** Parses "<amount><denom>" minimum gas prices for the EVM denom; other denoms are ignored here. */
export function parseMinGasPrice(text: string, evmDenom: string): bigint {
  const trimmed = text.trim();
  if (trimmed === '') return 0n;
  for (const part of trimmed.split(',')) {
    const m = /^(\d+)(?:\.0*)?([a-zA-Z][a-zA-Z0-9/:._-]*)$/.exec(part.trim());
    if (!m) throw new Error(`invalid minimum-gas-prices "${text}": expected e.g. 0${evmDenom}`);
    if (m[2] === evmDenom) return BigInt(m[1]!);
  }
  return 0n;
}

/** Validates a bech32 human-readable prefix (lower-case letters and digits, as Cosmos chains use). */
export function parseBech32Prefix(text: string): string {
  if (!/^[a-z][a-z0-9]{0,19}$/.test(text)) {
    throw new Error(
      `invalid bech32-prefix "${text}": expected 1-20 lower-case letters or digits, starting with a letter`,
    );
  }
  return text;
}

/** Reads the home's genesis chain id (falls back to the default when the home is not initialised yet). */
export function readGenesisChainId(home: string): string | undefined {
  const p = join(home, 'config', 'genesis.json');
  if (!existsSync(p)) return undefined;
  const g = JSON.parse(readFileSync(p, 'utf8')) as { chain_id?: string };
  return g.chain_id;
}

/** The bearer-token file: json-rpc.auth-token-file (relative to the home), else <home>/config/auth.token. */
function authTokenFile(home: string, v: unknown): string {
  const given = v === undefined ? '' : str(v, 'json-rpc.auth-token-file').trim();
  return given === '' ? join(home, 'config', 'auth.token') : resolve(home, given);
}

/** scrypt cost of new key files: geth's standard (n=2^18, p=1), or its light cost (n=2^12, p=6) under --dev. */
function keystoreConfig(n: unknown, p: unknown, dev: boolean): NodeConfig['keystore'] {
  const scryptN = n === undefined ? (dev ? 4096 : 262144) : int(n, 'keystore.scrypt-n');
  const scryptP = p === undefined ? (dev ? 6 : 1) : int(p, 'keystore.scrypt-p');
  if (scryptN < 2 || scryptN > 2 ** 20 || (scryptN & (scryptN - 1)) !== 0) {
    throw new Error(`config: keystore.scrypt-n must be a power of two between 2 and 1048576 (got ${scryptN})`);
  }
  if (scryptP < 1 || scryptP > 64)
    throw new Error(`config: keystore.scrypt-p must be between 1 and 64 (got ${scryptP})`);
  return { scryptN, scryptP };
}

/** Loads and validates the configuration; throws Error with a clear message on bad values. */
export function loadConfig(home: string, flags: FlagOverrides, chainIdDefault: string): NodeConfig {
  const tomlPath = join(home, 'config', 'app.toml');
  const toml = parseToml(existsSync(tomlPath) ? readFileSync(tomlPath, 'utf8') : defaultAppToml()) as Toml;
  const defaults = parseToml(defaultAppToml()) as Toml;
  const pick = (sec: string | null, key: string): unknown => {
    const flag = flags[sec ? `${sec}.${key}` : key];
    if (flag !== undefined) return flag;
    const fromFile = sec ? section(toml, sec)[key] : toml[key];
    if (fromFile !== undefined) return fromFile;
    return sec ? section(defaults, sec)[key] : defaults[key];
  };
  const chainId = (flags['chain-id'] as string | undefined) ?? readGenesisChainId(home) ?? chainIdDefault;
  const apiRaw = pick('json-rpc', 'api');
  const api = (Array.isArray(apiRaw) ? apiRaw.map(String) : str(apiRaw, 'json-rpc.api').split(','))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const seen = new Set<string>();
  for (const ns of api) {
    if (!(ALL_NAMESPACES as readonly string[]).includes(ns)) {
      throw new Error(`invalid namespace "${ns}" in json-rpc.api (available: ${ALL_NAMESPACES.join(', ')})`);
    }
    if (seen.has(ns)) throw new Error(`repeated API namespace '${ns}'`);
    seen.add(ns);
  }
  const compat = str(pick('json-rpc', 'compat'), 'json-rpc.compat');
  if (compat !== 'none' && compat !== 'ethermint') {
    throw new Error(`invalid json-rpc.compat "${compat}" (use none or ethermint)`);
  }
  const transport = str(pick('json-rpc', 'transport'), 'json-rpc.transport');
  if (transport !== 'auto' && transport !== 'uws' && transport !== 'node') {
    throw new Error(`invalid json-rpc.transport "${transport}" (use auto, uws or node)`);
  }
  const consensus = str(flags['consensus'] ?? section(toml, 'consensus')['engine'] ?? 'solo', 'consensus');
  if (consensus !== 'solo' && consensus !== 'cometbft') {
    throw new Error(`invalid consensus "${consensus}" (use solo or cometbft)`);
  }
  const list = (v: unknown) =>
    (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter(Boolean);
  const corsOrigins = list(pick('json-rpc', 'cors-origins'));
  const allowedHosts = list(pick('json-rpc', 'allowed-hosts'));
  const evmTimeoutMs = parseDurationMs(str(pick('json-rpc', 'evm-timeout'), 'json-rpc.evm-timeout'));
  const blockTimeMs = parseDurationMs(String(pick(null, 'block-time')));
  const minGasRaw = flags['minimum-gas-prices'] ?? toml['minimum-gas-prices'] ?? `0${DEFAULT_EVM_DENOM}`;
  const etherbaseText = str(pick('miner', 'etherbase') ?? '', 'miner.etherbase').trim();
  if (etherbaseText !== '' && !/^0x[0-9a-fA-F]{40}$/.test(etherbaseText)) {
    throw new Error(`config: miner.etherbase "${etherbaseText}" must be a 0x-prefixed 20-byte hex address`);
  }
  const explicitFlags = new Set(Object.keys(flags).filter((k) => flags[k] !== undefined));
  return {
    home,
    dev: flags['dev'] === true,
    devToolkit: flags['dev'] === true || section(toml, 'dev')['toolkit'] === true,
    ...forkOf(pick('fork', 'url'), pick('fork', 'block-number')),
    chainId,
    evmChainId: parseEvmChainId(chainId),
    evmDenom: DEFAULT_EVM_DENOM,
    bech32Prefix: parseBech32Prefix(String(pick(null, 'bech32-prefix') ?? DEFAULT_BECH32_PREFIX)),
    blockTimeMs,
    minGasPrice: parseMinGasPrice(str(minGasRaw, 'minimum-gas-prices'), DEFAULT_EVM_DENOM),
    minGasPriceFromFlag: flags['minimum-gas-prices'] !== undefined,
    consensus,
    mempool: {
      accountSlots: int(pick('mempool', 'account-slots'), 'mempool.account-slots'),
      globalSlots: int(pick('mempool', 'global-slots'), 'mempool.global-slots'),
      accountQueue: int(pick('mempool', 'account-queue'), 'mempool.account-queue'),
      globalQueue: int(pick('mempool', 'global-queue'), 'mempool.global-queue'),
      lifetimeMs: parseDurationMs(str(pick('mempool', 'lifetime'), 'mempool.lifetime')),
      priceBumpPercent: int(pick('mempool', 'price-bump'), 'mempool.price-bump'),
      journal: pick('mempool', 'journal') !== false,
      journalFsync: pick('mempool', 'journal-fsync') !== false,
      recoveryWorkers: recoveryWorkers(pick('mempool', 'recovery-workers')),
      recoveryMinBatch: int(pick('mempool', 'recovery-min-batch'), 'mempool.recovery-min-batch'),
    },
    etherbase: etherbaseText === '' ? undefined : Uint8Array.from(Buffer.from(etherbaseText.slice(2), 'hex')),
    jsonRpc: {
      enable: pick('json-rpc', 'enable') !== false,
      address: str(pick('json-rpc', 'address'), 'json-rpc.address'),
      wsAddress: str(pick('json-rpc', 'ws-address'), 'json-rpc.ws-address'),
      api,
      gasCap: BigInt(int(pick('json-rpc', 'gas-cap'), 'json-rpc.gas-cap')),
      evmTimeoutMs,
      tracerTimeoutCapMs: positive(
        parseDurationMs(str(pick('json-rpc', 'tracer-timeout-cap'), 'json-rpc.tracer-timeout-cap')),
        'json-rpc.tracer-timeout-cap',
      ),
      tracerMemoryBytes: positive(
        int(pick('json-rpc', 'tracer-memory'), 'json-rpc.tracer-memory'),
        'json-rpc.tracer-memory',
      ),
      logsCap: int(pick('json-rpc', 'logs-cap'), 'json-rpc.logs-cap'),
      blockRangeCap: int(pick('json-rpc', 'block-range-cap'), 'json-rpc.block-range-cap'),
      filterCap: int(pick('json-rpc', 'filter-cap'), 'json-rpc.filter-cap'),
      filterTimeoutMs: parseDurationMs(str(pick('json-rpc', 'filter-timeout'), 'json-rpc.filter-timeout')),
      wsSubscriptionsPerConnection: int(
        pick('json-rpc', 'ws-subscriptions-per-connection'),
        'json-rpc.ws-subscriptions-per-connection',
      ),
      wsSubscriptionBufferBytes: int(
        pick('json-rpc', 'ws-subscription-buffer-bytes'),
        'json-rpc.ws-subscription-buffer-bytes',
      ),
      feeHistoryCap: int(pick('json-rpc', 'feehistory-cap'), 'json-rpc.feehistory-cap'),
      maxBodyBytes: int(pick('json-rpc', 'max-body-bytes'), 'json-rpc.max-body-bytes'),
      maxBatchItems: int(pick('json-rpc', 'batch-request-limit'), 'json-rpc.batch-request-limit'),
      maxResponseBytes: int(pick('json-rpc', 'max-response-bytes'), 'json-rpc.max-response-bytes'),
      maxOpenConnections: int(pick('json-rpc', 'max-open-connections'), 'json-rpc.max-open-connections'),
      corsOrigins,
      allowedHosts,
      httpTimeoutMs: parseDurationMs(str(pick('json-rpc', 'http-timeout'), 'json-rpc.http-timeout')),
      transport,
      busyPollUs: busyPollUs(pick('json-rpc', 'busy-poll-us')),
      coalesceWrites: bool(pick('json-rpc', 'coalesce-writes') ?? true, 'json-rpc.coalesce-writes'),
      compat,
      authTokenFile: authTokenFile(home, pick('json-rpc', 'auth-token-file')),
    },
    keystore: keystoreConfig(pick('keystore', 'scrypt-n'), pick('keystore', 'scrypt-p'), flags['dev'] === true),
    grpcAddress: str(pick('grpc', 'address'), 'grpc.address'),
    rpcLaddr: str(pick('rpc', 'laddr'), 'rpc.laddr'),
    abciLaddr: str(pick('abci', 'laddr'), 'abci.laddr'),
    cometRpc: str(pick('comet', 'rpc'), 'comet.rpc'),
    pruning: pruningConfig(
      str(pick(null, 'pruning') ?? 'archive', 'pruning'),
      optionalInt(pick(null, 'pruning-keep-recent'), 'pruning-keep-recent'),
      optionalInt(pick(null, 'pruning-interval'), 'pruning-interval'),
    ),
    stateSync: {
      interval: optionalInt(pick('state-sync', 'snapshot-interval'), 'state-sync.snapshot-interval') ?? 0,
      keepRecent: optionalInt(pick('state-sync', 'snapshot-keep-recent'), 'state-sync.snapshot-keep-recent') ?? 2,
    },
    cache: cacheConfig(pick('cache', 'budget-mb'), pick('cache', 'heap-growth-percent')),
    metrics: {
      // --metrics.address alone turns them on too: naming an address means wanting it served.
      enabled:
        flags['metrics'] === true ||
        flags['metrics.address'] !== undefined ||
        section(toml, 'metrics')['enable'] === true,
      address: str(pick('metrics', 'address') ?? DEFAULT_METRICS_ADDRESS, 'metrics.address'),
    },
    log: {
      level: parseLogLevel(str(pick('log', 'level') ?? 'info', 'log.level')),
      format: parseLogFormat(str(pick('log', 'format') ?? 'text', 'log.format')),
    },
    explicitFlags,
  };
}
