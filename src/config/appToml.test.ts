import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'smol-toml';
import { editTomlText, readTomlValue, setTomlValue, withMinGasPrice } from './appToml.ts';
import { DEFAULT_CHAIN_ID, defaultAppToml } from './defaults.ts';
import { loadConfig } from './load.ts';
import { initHome } from '../node/home.ts';

const SAMPLE = `# Kestrel node configuration.

# Minimum gas price.
minimum-gas-prices = "0akestrel" # inline note
block-time = "0"

[json-rpc]
# where to listen
address = "127.0.0.1:8545"
cors-origins = [
  "*", # any
  "http://x[1]",
]
api = "eth,net" # namespaces

[miner]
`;

describe('editTomlText', () => {
  test('replaces a top-level value, keeping its comment and every other line', () => {
    const out = editTomlText(SAMPLE, null, 'minimum-gas-prices', '7akestrel');
    assert.equal(out, SAMPLE.replace('"0akestrel" # inline note', '"7akestrel" # inline note'));
  });

  test('replaces a multi-line array value in a table', () => {
    const out = editTomlText(SAMPLE, 'json-rpc', 'cors-origins', 'none');
    assert.match(out, /\ncors-origins = "none"\napi = "eth,net" # namespaces\n/);
    assert.equal((parse(out) as any)['json-rpc'].address, '127.0.0.1:8545');
    assert.ok(out.includes('# where to listen'));
  });

  test('adds a key to an existing table, an empty table, a new table, and the top level', () => {
    let out = editTomlText(SAMPLE, 'json-rpc', 'gas-cap', 5);
    assert.match(out, /api = "eth,net" # namespaces\ngas-cap = 5\n/);
    out = editTomlText(out, 'miner', 'etherbase', '0xabc');
    assert.match(out, /\[miner\]\netherbase = "0xabc"\n/);
    out = editTomlText(out, 'mempool', 'lifetime', '2s');
    assert.ok(out.endsWith('\n[mempool]\nlifetime = "2s"\n'));
    out = editTomlText(out, null, 'new-key', true);
    assert.match(out, /block-time = "0"\nnew-key = true\n/);
    const doc = parse(out) as any;
    assert.equal(doc['new-key'], true);
    assert.equal(doc.mempool.lifetime, '2s');
    assert.equal(doc.miner.etherbase, '0xabc');
    assert.deepEqual(doc['json-rpc']['cors-origins'], ['*', 'http://x[1]']);
  });

  test('the key of another table with the same name is not touched', () => {
    const text = 'a = 1\n[x]\na = 2\n';
    assert.equal(editTomlText(text, 'x', 'a', 3), 'a = 1\n[x]\na = 3\n');
    assert.equal(editTomlText(text, null, 'a', 4), 'a = 4\n[x]\na = 2\n');
  });

  test('quotes and backslashes are escaped', () => {
    const out = editTomlText('', null, 'k', 'a"b\\c');
    assert.equal((parse(out) as any).k, 'a"b\\c');
  });

  test('refuses an edit that would change anything else (dotted keys it cannot place)', () => {
    assert.throws(
      () => editTomlText('miner.etherbase = "0x1"\n', 'miner', 'etherbase', '0x2'),
      /edit the file by hand|would not parse/,
    );
  });

  test('the default app.toml takes every edit the miner namespace makes', () => {
    let out = editTomlText(defaultAppToml(), null, 'minimum-gas-prices', '5akestrel');
    out = editTomlText(out, 'miner', 'etherbase', '0x00000000000000000000000000000000000000aa');
    const doc = parse(out) as any;
    assert.equal(doc['minimum-gas-prices'], '5akestrel');
    assert.equal(doc.miner.etherbase, '0x00000000000000000000000000000000000000aa');
    assert.equal(
      out.split('\n').filter((l) => l.startsWith('#')).length,
      defaultAppToml()
        .split('\n')
        .filter((l) => l.startsWith('#')).length,
    );
  });
});

describe('setTomlValue / readTomlValue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-toml-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  test('writes in place keeping the file mode', () => {
    const p = join(dir, 'app.toml');
    writeFileSync(p, SAMPLE);
    chmodSync(p, 0o640);
    setTomlValue(p, 'miner', 'etherbase', '0x01');
    assert.equal(statSync(p).mode & 0o777, 0o640);
    assert.equal(readTomlValue(p, 'miner', 'etherbase'), '0x01');
    assert.equal(readTomlValue(p, null, 'block-time'), '0');
    assert.equal(readTomlValue(join(dir, 'none.toml'), null, 'x'), undefined);
    assert.ok(readFileSync(p, 'utf8').startsWith('# Kestrel node configuration.'));
  });
});

test('withMinGasPrice keeps the other denoms', () => {
  assert.equal(withMinGasPrice('0akestrel', 5n, 'akestrel'), '5akestrel');
  assert.equal(withMinGasPrice('1stake, 0.000akestrel', 5n, 'akestrel'), '1stake,5akestrel');
  assert.equal(withMinGasPrice(undefined, 5n, 'akestrel'), '5akestrel');
  assert.equal(withMinGasPrice('1stake', 5n, 'akestrel'), '5akestrel,1stake');
});

describe('loadConfig: [mempool] and [miner] as the miner namespace writes them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-toml-cfg-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  test('defaults, edits, and a bad etherbase', () => {
    const home = join(dir, 'h');
    initHome(home, { chainId: DEFAULT_CHAIN_ID, dev: true });
    const toml = join(home, 'config', 'app.toml');
    let c = loadConfig(home, {}, DEFAULT_CHAIN_ID);
    assert.deepEqual(c.mempool, {
      accountSlots: 16,
      globalSlots: 5120,
      accountQueue: 64,
      globalQueue: 1024,
      lifetimeMs: 3 * 3600_000,
      priceBumpPercent: 10,
      journal: true,
      journalFsync: true,
      recoveryWorkers: availableParallelism() >= 2 ? 1 : 0,
      recoveryMinBatch: 1,
    });
    assert.equal(c.etherbase, undefined);
    setTomlValue(toml, 'mempool', 'lifetime', '2s');
    setTomlValue(toml, 'miner', 'etherbase', '0x00000000000000000000000000000000000000Aa');
    setTomlValue(toml, null, 'minimum-gas-prices', '5akestrel');
    c = loadConfig(home, {}, DEFAULT_CHAIN_ID);
    assert.equal(c.mempool.lifetimeMs, 2000);
    setTomlValue(toml, 'mempool', 'recovery-workers', 3);
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).mempool.recoveryWorkers, 3);
    setTomlValue(toml, 'mempool', 'recovery-workers', 'many');
    assert.throws(() => loadConfig(home, {}, DEFAULT_CHAIN_ID), /mempool.recovery-workers must be a non-negative/);
    setTomlValue(toml, 'mempool', 'recovery-workers', 'auto');
    assert.equal(c.etherbase?.[19], 0xaa);
    assert.equal(c.minGasPrice, 5n);
    c = loadConfig(home, { 'minimum-gas-prices': '1akestrel' }, DEFAULT_CHAIN_ID);
    assert.equal(c.minGasPrice, 1n, 'the flag wins');
    assert.equal(c.minGasPriceFromFlag, true);
    setTomlValue(toml, 'miner', 'etherbase', '0x12');
    assert.throws(
      () => loadConfig(home, {}, DEFAULT_CHAIN_ID),
      /miner.etherbase "0x12" must be a 0x-prefixed 20-byte hex address/,
    );
  });
});
