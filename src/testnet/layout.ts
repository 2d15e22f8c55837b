// `kestreld testnet`: lays out N validators on loopback — one CometBFT home and one Kestrel home per node, a shared
// CometBFT genesis (every validator at the same power) and a shared Kestrel genesis, distinct ports per node, full
// persistent peering and fast blocks — plus DIR/testnet.json and DIR/start.sh / DIR/stop.sh.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEvmChainId } from '../config/chainId.ts';
import { readTomlValue, setTomlValue, type TomlScalar } from '../config/appToml.ts';
import type { FeeRecipientEntry, GenesisDoc } from '../app/genesis.ts';
import { homePaths, initHome, readValidatorAddress } from '../node/home.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { MANIFEST_FILE, type Manifest, type ManifestNode } from './manifest.ts';
import { planPorts, type NodePorts } from './ports.ts';

/** Repository root (holds bin/kestreld.js and .tools/bin). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where `npm run cometbft:install` puts the binary. */
export const DEFAULT_COMETBFT = join(REPO_ROOT, '.tools', 'bin', 'cometbft');

/** What the testnet is made of. */
export interface TestnetOptions {
  validators: number;
  output: string;
  basePort: number;
  chainId: string;
  /** Voting power of each validator. */
  power: number;
  /** Fund the ten development accounts in the Kestrel genesis. */
  dev: boolean;
  cometbft: string;
  /** Consensus timeouts written into every config.toml (CometBFT duration strings). */
  timeoutCommit: string;
  timeoutPropose: string;
  /**
   * Make the validators staking validators (app_state.staking: each self-delegates its power in whole coins), so
   * the set follows stake; false keeps CometBFT's genesis set fixed. Default true.
   */
  staking?: boolean;
  /** Module parameters merged into app_state (e.g. {"staking":{"params":{"unbonding_time":"10s"}}}). */
  genesisParams?: Record<string, unknown>;
}

/** CometBFT duration syntax as config.toml takes it (Go time.ParseDuration, the units a testnet needs). */
const DURATION_RE = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

/** Checks the options before anything is written; throws with the flag at fault. */
export function validateOptions(o: TestnetOptions): NodePorts[] {
  parseEvmChainId(o.chainId);
  if (!Number.isSafeInteger(o.power) || o.power < 1 || o.power > 2 ** 40) {
    throw new Error(`--power must be an integer from 1 to ${2 ** 40} (got ${o.power})`);
  }
  for (const [flag, v] of [
    ['--timeout-commit', o.timeoutCommit],
    ['--timeout-propose', o.timeoutPropose],
  ] as const) {
    if (!DURATION_RE.test(v)) throw new Error(`${flag} must be a duration such as 200ms or 1s (got "${v}")`);
  }
  const ports = planPorts(o.basePort, o.validators);
  if (existsSync(o.output) && readdirSync(o.output).length > 0) {
    throw new Error(`--output ${o.output} exists and is not empty; choose a new directory`);
  }
  if (!existsSync(o.cometbft)) {
    throw new Error(
      `CometBFT binary not found at ${o.cometbft}: run "npm run cometbft:install" (or pass --cometbft <path>)`,
    );
  }
  return ports;
}

function run(bin: string, args: string[]): string {
  try {
    return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`${bin} ${args.join(' ')} failed: ${(err.stderr ?? '').trim() || err.message}`);
  }
}

/** Sets keys of a CometBFT config.toml; every key must already exist (a missing one means a CometBFT we do not know). */
export function editCometConfig(
  path: string,
  values: Array<[section: string | null, key: string, value: TomlScalar]>,
): void {
  for (const [section, key, value] of values) {
    if (readTomlValue(path, section, key) === undefined) {
      throw new Error(`${path} has no ${section ? `[${section}] ` : ''}${key}: not a CometBFT v0.38 config.toml`);
    }
    setTomlValue(path, section, key, value);
  }
}

/** config.toml settings of one node: its ports, the other validators as persistent peers, loopback p2p, fast blocks. */
export function cometConfigValues(
  o: Pick<TestnetOptions, 'timeoutCommit' | 'timeoutPropose'>,
  name: string,
  ports: NodePorts,
  peers: string,
): Array<[string | null, string, TomlScalar]> {
  return [
    [null, 'moniker', name],
    [null, 'proxy_app', `tcp://127.0.0.1:${ports.abci}`],
    ['rpc', 'laddr', `tcp://127.0.0.1:${ports.rpc}`],
    ['p2p', 'laddr', `tcp://127.0.0.1:${ports.p2p}`],
    ['p2p', 'external_address', ''],
    ['p2p', 'persistent_peers', peers],
    // Several peers share 127.0.0.1: CometBFT refuses that (and non-routable addresses) unless told otherwise.
    ['p2p', 'addr_book_strict', false],
    ['p2p', 'allow_duplicate_ip', true],
    ['consensus', 'timeout_commit', o.timeoutCommit],
    ['consensus', 'timeout_propose', o.timeoutPropose],
    ['consensus', 'create_empty_blocks', true],
  ];
}

/** persistent_peers of node `i`: every other node as id@127.0.0.1:p2p. */
export function peersOf(i: number, nodes: Array<{ nodeId: string; ports: NodePorts }>): string {
  return nodes
    .filter((_, j) => j !== i)
    .map((n) => `${n.nodeId}@127.0.0.1:${n.ports.p2p}`)
    .join(',');
}

/** app.toml settings of one node: cometbft consensus, its own CometBFT's RPC (where txs go) and its listen addresses. */
export function appConfigValues(ports: NodePorts): Array<[string | null, string, TomlScalar]> {
  return [
    ['consensus', 'engine', 'cometbft'],
    ['abci', 'laddr', `tcp://127.0.0.1:${ports.abci}`],
    ['comet', 'rpc', `tcp://127.0.0.1:${ports.rpc}`],
    ['json-rpc', 'address', `127.0.0.1:${ports.ethHttp}`],
    ['json-rpc', 'ws-address', `127.0.0.1:${ports.ethWs}`],
    ['grpc', 'address', `127.0.0.1:${ports.grpc}`],
    ['rpc', 'laddr', `tcp://127.0.0.1:${ports.appRpc}`],
    ['metrics', 'enable', true],
    ['metrics', 'address', `127.0.0.1:${ports.metrics}`],
  ];
}

interface CometGenesis {
  genesis_time: string;
  chain_id: string;
  consensus_params: { block: { max_bytes: string; max_gas: string } };
  validators: Array<{ address: string; pub_key: unknown; power: string; name: string }>;
  app_state?: unknown;
}

/** The shared CometBFT genesis: Kestrel's chain id, genesis time, block gas limit and app_state; equal power for all. */
export function mergeGenesis(
  comet: CometGenesis,
  kestrel: {
    genesis_time: string;
    chain_id: string;
    consensus_params: { block: { max_gas: string } };
    app_state: unknown;
  },
  power: number,
): CometGenesis {
  return {
    ...comet,
    genesis_time: kestrel.genesis_time,
    chain_id: kestrel.chain_id,
    consensus_params: {
      ...comet.consensus_params,
      block: { ...comet.consensus_params.block, max_gas: kestrel.consensus_params.block.max_gas },
    },
    validators: comet.validators.map((v) => ({ ...v, power: String(power) })),
    app_state: kestrel.app_state,
  };
}

/** A validator's genesis fee_recipients entry: its CometBFT consensus address → its Kestrel validator account. */
export function feeRecipientEntry(cometHome: string, appHome: string): FeeRecipientEntry {
  const key = JSON.parse(readFileSync(join(cometHome, 'config', 'priv_validator_key.json'), 'utf8')) as {
    address?: string;
  };
  if (typeof key.address !== 'string' || !/^[0-9A-Fa-f]{40}$/.test(key.address)) {
    throw new Error(`${cometHome}/config/priv_validator_key.json has no 20-byte address`);
  }
  return { validator: key.address.toUpperCase(), recipient: bytesToHex(readValidatorAddress(appHome)) };
}

/** A genesis staking validator: the node's CometBFT key, its Kestrel validator account as operator, `power` coins. */
export function stakingValidator(cometHome: string, appHome: string, moniker: string, power: number) {
  const key = JSON.parse(readFileSync(join(cometHome, 'config', 'priv_validator_key.json'), 'utf8')) as {
    pub_key?: { type?: string; value?: string };
  };
  if (key.pub_key?.type !== 'tendermint/PubKeyEd25519' || typeof key.pub_key.value !== 'string') {
    throw new Error(`${cometHome}/config/priv_validator_key.json has no ed25519 public key`);
  }
  return {
    operator_address: bytesToHex(readValidatorAddress(appHome)),
    consensus_pubkey: key.pub_key.value,
    self_delegation: (BigInt(power) * 10n ** 18n).toString(),
    moniker,
    commission_rate: '0.1',
  };
}

/** Merges {module: {params: {...}}} into app_state, one level under each module. */
function mergeParams(state: Record<string, unknown>, extra: Record<string, unknown>): void {
  for (const [module, value] of Object.entries(extra)) {
    const target = (state[module] ??= {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      target[k] =
        typeof v === 'object' && v !== null && !Array.isArray(v)
          ? { ...((target[k] as Record<string, unknown>) ?? {}), ...(v as Record<string, unknown>) }
          : v;
    }
  }
}

function writeScript(path: string, body: string): void {
  writeFileSync(path, body);
  chmodSync(path, 0o755);
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Lays the testnet out in `o.output` and returns its manifest. */
export function createTestnet(o: TestnetOptions): Manifest {
  const ports = validateOptions(o);
  const out = resolve(o.output);
  const existed = existsSync(out);
  mkdirSync(out, { recursive: true });
  const gen = join(out, '.cometbft-testnet');
  let done = false;
  try {
    const version = run(o.cometbft, ['version']).trim();
    run(o.cometbft, [
      'testnet',
      '--v',
      String(o.validators),
      '--n',
      '0',
      '--o',
      gen,
      '--populate-persistent-peers=false',
    ]);
    const nodes: ManifestNode[] = [];
    for (let i = 0; i < o.validators; i++) {
      const name = `node${i}`;
      mkdirSync(join(out, name));
      renameSync(join(gen, name), join(out, name, 'cometbft'));
      const nodeId = run(o.cometbft, ['show-node-id', '--home', join(out, name, 'cometbft')]).trim();
      if (!/^[0-9a-f]{40}$/.test(nodeId)) throw new Error(`cometbft show-node-id printed "${nodeId}"`);
      nodes.push({ name, nodeId, ports: ports[i]!, cometHome: `${name}/cometbft`, appHome: `${name}/kestrel` });
    }

    // Kestrel homes: node0's genesis (accounts, time) is the one every node uses; keys stay per node.
    for (const n of nodes) initHome(join(out, n.appHome), { chainId: o.chainId, dev: o.dev });
    const kestrelGenesis = homePaths(join(out, nodes[0]!.appHome)).genesis;
    // Each validator's fees go to its operator: the Ethereum account of its Kestrel home's validator key.
    const doc = JSON.parse(readFileSync(kestrelGenesis, 'utf8')) as GenesisDoc;
    doc.app_state.fee_recipients = nodes.map((n) => feeRecipientEntry(join(out, n.cometHome), join(out, n.appHome)));
    if (o.staking !== false) {
      const state = doc.app_state as unknown as Record<string, unknown>;
      state.staking = {
        validators: nodes.map((n) => stakingValidator(join(out, n.cometHome), join(out, n.appHome), n.name, o.power)),
      };
      mergeParams(state, o.genesisParams ?? {});
    }
    writeFileSync(kestrelGenesis, JSON.stringify(doc, null, 2) + '\n');
    for (const n of nodes.slice(1)) copyFileSync(kestrelGenesis, homePaths(join(out, n.appHome)).genesis);
    for (const n of nodes) {
      for (const [s, k, v] of appConfigValues(n.ports)) setTomlValue(homePaths(join(out, n.appHome)).appToml, s, k, v);
    }

    const cometGenesisPath = (n: ManifestNode) => join(out, n.cometHome, 'config', 'genesis.json');
    const merged = mergeGenesis(
      JSON.parse(readFileSync(cometGenesisPath(nodes[0]!), 'utf8')) as CometGenesis,
      JSON.parse(readFileSync(kestrelGenesis, 'utf8')),
      o.power,
    );
    for (const [i, n] of nodes.entries()) {
      writeFileSync(cometGenesisPath(n), JSON.stringify(merged, null, 2) + '\n');
      editCometConfig(
        join(out, n.cometHome, 'config', 'config.toml'),
        cometConfigValues(o, n.name, n.ports, peersOf(i, nodes)),
      );
    }

    const manifest: Manifest = {
      format: 1,
      chainId: o.chainId,
      power: o.power,
      cometbftVersion: version,
      programs: {
        node: process.execPath,
        kestreld: join(REPO_ROOT, 'bin', 'kestreld.js'),
        cometbft: resolve(o.cometbft),
      },
      nodes,
    };
    writeFileSync(join(out, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    const kestreld = `${shellQuote(process.execPath)} ${shellQuote(join(REPO_ROOT, 'bin', 'kestreld.js'))}`;
    const header = '#!/bin/sh\n# Generated by kestreld testnet.\nset -e\ncd "$(dirname "$0")"\n';
    writeScript(join(out, 'start.sh'), `${header}exec ${kestreld} testnet start "$PWD" "$@"\n`);
    writeScript(join(out, 'stop.sh'), `${header}exec ${kestreld} testnet stop "$PWD" "$@"\n`);
    done = true;
    return manifest;
  } finally {
    // A half-written testnet is worse than none: remove what this call created.
    rmSync(done || existed ? gen : out, { recursive: true, force: true });
  }
}
