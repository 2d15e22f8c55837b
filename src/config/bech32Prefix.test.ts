import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseGenesis, type GenesisDoc } from '../app/genesis.ts';
import { initHome } from '../node/home.ts';
import { loadConfig, parseBech32Prefix } from './load.ts';

describe('bech32 prefix', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test('is validated', () => {
    assert.equal(parseBech32Prefix('evmos'), 'evmos');
    for (const bad of ['', 'Kestrel', '1abc', 'a-b', 'x'.repeat(21)])
      assert.throws(() => parseBech32Prefix(bad), /invalid bech32-prefix/);
  });

  test('init --bech32-prefix writes it to app.toml and uses it for genesis addresses', () => {
    const home = mkdtempSync(join(tmpdir(), 'kestrel-prefix-'));
    dirs.push(home);
    initHome(home, { chainId: 'kestrel_9000-1', dev: true, bech32Prefix: 'evmos' });
    const config = loadConfig(home, {}, 'kestrel_9000-1');
    assert.equal(config.bech32Prefix, 'evmos');
    const doc = JSON.parse(readFileSync(join(home, 'config', 'genesis.json'), 'utf8')) as GenesisDoc;
    assert.ok(doc.app_state.bank.balances.every((b) => b.address.startsWith('evmos1')));
    assert.equal(parseGenesis(doc, config.bech32Prefix).alloc.length, 10);
  });

  test('defaults to kestrel', () => {
    const home = mkdtempSync(join(tmpdir(), 'kestrel-prefix-'));
    dirs.push(home);
    initHome(home, { chainId: 'kestrel_9000-1', dev: false });
    assert.equal(loadConfig(home, {}, 'kestrel_9000-1').bech32Prefix, 'kestrel');
  });
});
