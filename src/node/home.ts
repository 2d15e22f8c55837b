// The node's home directory: config/app.toml, config/genesis.json, config/auth.token, config/priv_validator_key.json,
// keystore/ and data/. `kestreld init` (or the first `start --dev`) lays it out.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FORK } from '../app/evm/common.ts';
import { makeGenesisDoc, type Genesis } from '../app/genesis.ts';
import { DEFAULT_BECH32_PREFIX, DEFAULT_EVM_DENOM, defaultAppToml } from '../config/defaults.ts';
import { parseEvmChainId } from '../config/chainId.ts';
import { parseBech32Prefix } from '../config/load.ts';
import { bytesToHex, hexToBytes } from '../primitives/hex.ts';
import { privateKeyToAddress, randomPrivateKey } from '../keys/secp.ts';

/** Default home: ~/.kestrel-dev for dev chains, ~/.kestrel otherwise. */
export function defaultHome(dev: boolean): string {
  return join(homedir(), dev ? '.kestrel-dev' : '.kestrel');
}

/** Paths inside a home. */
export function homePaths(home: string) {
  return {
    config: join(home, 'config'),
    appToml: join(home, 'config', 'app.toml'),
    genesis: join(home, 'config', 'genesis.json'),
    authToken: join(home, 'config', 'auth.token'),
    validatorKey: join(home, 'config', 'priv_validator_key.json'),
    keystore: join(home, 'keystore'),
    data: join(home, 'data'),
  };
}

/** Writes a file atomically (temp file + rename) with the given mode. */
export function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, content, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

/** True when the home already holds a genesis. */
export function isInitialized(home: string): boolean {
  return existsSync(homePaths(home).genesis);
}

/** The fork `kestreld init` writes into a new genesis unless told another. */
export const INIT_FORK = DEFAULT_FORK;

/** Lays out a new home (its genesis naming `fork`, Osaka by default); refuses to overwrite a genesis unless `overwrite`. */
export function initHome(
  home: string,
  opts: { chainId: string; dev: boolean; overwrite?: boolean; bech32Prefix?: string; fork?: Genesis['fork'] },
): void {
  parseEvmChainId(opts.chainId);
  const prefix = parseBech32Prefix(opts.bech32Prefix ?? DEFAULT_BECH32_PREFIX);
  const p = homePaths(home);
  if (existsSync(p.genesis) && !opts.overwrite) {
    throw new Error(`genesis.json already exists in ${p.config}; use --overwrite to replace it`);
  }
  for (const d of [p.config, p.keystore, p.data]) mkdirSync(d, { recursive: true, mode: 0o700 });
  if (!existsSync(p.appToml)) writeFileAtomic(p.appToml, defaultAppToml(prefix));
  const doc = makeGenesisDoc({
    chainId: opts.chainId,
    evmDenom: DEFAULT_EVM_DENOM,
    prefix,
    dev: opts.dev,
    now: new Date(),
    fork: opts.fork ?? DEFAULT_FORK,
  });
  writeFileAtomic(p.genesis, JSON.stringify(doc, null, 2) + '\n');
  if (!existsSync(p.authToken)) writeFileAtomic(p.authToken, randomBytes(32).toString('hex') + '\n', 0o600);
  if (!existsSync(p.validatorKey)) {
    const key = randomPrivateKey();
    const body = { address: bytesToHex(privateKeyToAddress(key)), priv_key: bytesToHex(key) };
    writeFileAtomic(p.validatorKey, JSON.stringify(body, null, 2) + '\n', 0o600);
  }
}

/** Reads a bearer-token file; a missing or empty file is a clear error (private methods would be unusable). */
export function readAuthTokenFile(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw new Error(`cannot read the JSON-RPC auth token file ${path}: ${(e as Error).message}`);
  }
  if (token === '') throw new Error(`the JSON-RPC auth token file ${path} is empty`);
  return token;
}

/** Reads the home's default bearer token (config/auth.token). */
export function readAuthToken(home: string): string {
  return readAuthTokenFile(homePaths(home).authToken);
}

/** Reads the validator's account address (the default etherbase). */
export function readValidatorAddress(home: string): Uint8Array {
  const v = JSON.parse(readFileSync(homePaths(home).validatorKey, 'utf8')) as { address: string };
  return hexToBytes(v.address);
}
