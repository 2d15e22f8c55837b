import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseGenesis, type GenesisDoc } from '../app/genesis.ts';
import { privateKeyToAddress } from '../keys/secp.ts';
import { bytesToHex, hexToBytes } from '../primitives/hex.ts';
import { homePaths, initHome, isInitialized, readAuthToken, readValidatorAddress } from './home.ts';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('initHome', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-home-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('lays out a dev home with private files at 0600', () => {
    const home = join(dir, 'dev');
    assert.equal(isInitialized(home), false);
    initHome(home, { chainId: 'kestrel_9000-1', dev: true });
    const p = homePaths(home);
    assert.equal(isInitialized(home), true);
    for (const f of [p.appToml, p.genesis, p.authToken, p.validatorKey]) assert.ok(existsSync(f), f);
    assert.ok(statSync(p.keystore).isDirectory());
    assert.ok(statSync(p.data).isDirectory());
    assert.equal(mode(p.authToken), 0o600);
    assert.equal(mode(p.validatorKey), 0o600);
    assert.match(readFileSync(p.appToml, 'utf8'), /minimum-gas-prices = "0akestrel"/);

    const token = readAuthToken(home);
    assert.match(token, /^[0-9a-f]{64}$/);

    const key = JSON.parse(readFileSync(p.validatorKey, 'utf8')) as { address: string; priv_key: string };
    assert.equal(key.address, bytesToHex(privateKeyToAddress(hexToBytes(key.priv_key))), 'address matches the key');
    assert.equal(bytesToHex(readValidatorAddress(home)), key.address);

    const doc = JSON.parse(readFileSync(p.genesis, 'utf8')) as GenesisDoc;
    assert.equal(doc.chain_id, 'kestrel_9000-1');
    const g = parseGenesis(doc, 'kestrel');
    assert.equal(g.alloc.length, 10);
    assert.equal(g.evmDenom, 'akestrel');
    assert.equal(g.blockGasLimit, 30_000_000n);
    assert.equal(g.baseFee, 1_000_000_000n);
    // A new home runs Osaka, and says so in its genesis.
    assert.equal(doc.app_state.evm.params.fork, 'Osaka');
    assert.equal(g.fork, 'Osaka');
  });

  test('genesis names the fork: any of Cancun, Prague, Osaka; absent (a home made before) means Prague', () => {
    const home = join(dir, 'cancun');
    initHome(home, { chainId: 'kestrel_9000-1', dev: false, fork: 'Cancun' });
    const doc = JSON.parse(readFileSync(homePaths(home).genesis, 'utf8')) as GenesisDoc;
    assert.equal(parseGenesis(doc, 'kestrel').fork, 'Cancun');
    delete doc.app_state.evm.params.fork;
    assert.equal(parseGenesis(doc, 'kestrel').fork, 'Prague');
    doc.app_state.evm.params.fork = 'Shanghai';
    assert.throws(
      () => parseGenesis(doc, 'kestrel'),
      /app_state\.evm\.params\.fork "Shanghai" is not one of Cancun, Prague, Osaka/,
    );
  });

  test('a non-dev home has an empty allocation', () => {
    const home = join(dir, 'plain');
    initHome(home, { chainId: 'kestrel_1234-1', dev: false });
    const doc = JSON.parse(readFileSync(homePaths(home).genesis, 'utf8')) as GenesisDoc;
    assert.equal(parseGenesis(doc, 'kestrel').alloc.length, 0);
  });

  test('refuses to overwrite without `overwrite`; keeps token, key and app.toml when overwriting', () => {
    const home = join(dir, 'again');
    initHome(home, { chainId: 'kestrel_9000-1', dev: true });
    const p = homePaths(home);
    const token = readAuthToken(home);
    const key = readFileSync(p.validatorKey, 'utf8');
    writeFileSync(p.appToml, 'block-time = "1s"\n');
    assert.throws(() => initHome(home, { chainId: 'kestrel_9000-1', dev: true }), /genesis.json already exists/);

    initHome(home, { chainId: 'kestrel_9001-1', dev: false, overwrite: true });
    const doc = JSON.parse(readFileSync(p.genesis, 'utf8')) as GenesisDoc;
    assert.equal(doc.chain_id, 'kestrel_9001-1');
    assert.equal(readAuthToken(home), token);
    assert.equal(readFileSync(p.validatorKey, 'utf8'), key);
    assert.equal(readFileSync(p.appToml, 'utf8'), 'block-time = "1s"\n');
    assert.equal(mode(p.authToken), 0o600);
  });

  test('rejects a bad chain id before writing anything', () => {
    const home = join(dir, 'bad');
    assert.throws(() => initHome(home, { chainId: 'kestrel', dev: true }), /invalid chain-id/);
    assert.equal(existsSync(home), false);
  });

  test('two homes get different auth tokens and validator keys', () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    initHome(a, { chainId: 'kestrel_9000-1', dev: true });
    initHome(b, { chainId: 'kestrel_9000-1', dev: true });
    assert.notEqual(readAuthToken(a), readAuthToken(b));
    assert.notEqual(bytesToHex(readValidatorAddress(a)), bytesToHex(readValidatorAddress(b)));
  });
});
