import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { initHome, homePaths } from '../node/home.ts';
import { parseEvmChainId } from './chainId.ts';
import { DEFAULT_CHAIN_ID } from './defaults.ts';
import { parseDurationMs } from './durations.ts';
import { loadConfig, parseMinGasPrice } from './load.ts';

describe('parseDurationMs', () => {
  test('Go duration strings', () => {
    assert.equal(parseDurationMs('0'), 0);
    assert.equal(parseDurationMs('500ms'), 500);
    assert.equal(parseDurationMs('1s'), 1000);
    assert.equal(parseDurationMs('2m0s'), 120_000);
    assert.equal(parseDurationMs('1h30m'), 5_400_000);
    assert.equal(parseDurationMs('1.5s'), 1500);
    assert.equal(parseDurationMs(' 5s '), 5000);
  });
  test('both micro signs, as Go accepts', () => {
    assert.equal(parseDurationMs('1500\u00b5s'), 1.5);
    assert.equal(parseDurationMs('1500\u03bcs'), 1.5);
  });
  test('a bare number is seconds', () => {
    assert.equal(parseDurationMs('2'), 2000);
  });
  test('bad input throws', () => {
    for (const bad of ['', 'abc', '1x', '-1s', '1s2', 's', '1 s', '5sec', 'ms']) {
      assert.throws(() => parseDurationMs(bad), /invalid duration/, bad);
    }
  });
});

describe('parseEvmChainId', () => {
  test('extracts the EIP-155 id', () => {
    assert.equal(parseEvmChainId('kestrel_9000-1'), 9000n);
    assert.equal(parseEvmChainId('evmos_9001-2'), 9001n);
    assert.equal(parseEvmChainId('a_1-1'), 1n);
  });
  test('rejects malformed chain ids', () => {
    for (const bad of [
      'kestrel-9000-1',
      'kestrel_9000',
      'kestrel_0-1',
      'kestrel_9000-0',
      'Kestrel_9000-1',
      '_9000-1',
      'kestrel_09000-1',
      'kestrel_abc-1',
      '9000',
      '',
      `${'a'.repeat(45)}_9000-1`,
    ]) {
      assert.throws(() => parseEvmChainId(bad), /invalid chain-id/, bad);
    }
  });
});

describe('parseMinGasPrice', () => {
  test('picks the EVM denom', () => {
    assert.equal(parseMinGasPrice('0akestrel', 'akestrel'), 0n);
    assert.equal(parseMinGasPrice('1000000000akestrel', 'akestrel'), 1_000_000_000n);
    assert.equal(parseMinGasPrice('5stake,7akestrel', 'akestrel'), 7n);
    assert.equal(parseMinGasPrice('10stake', 'akestrel'), 0n);
    assert.equal(parseMinGasPrice('', 'akestrel'), 0n);
    assert.equal(parseMinGasPrice('3.000akestrel', 'akestrel'), 3n);
  });
  test('rejects malformed values', () => {
    for (const bad of ['akestrel', '1.5akestrel', '-1akestrel', '10', 'x,1akestrel']) {
      assert.throws(() => parseMinGasPrice(bad, 'akestrel'), /invalid minimum-gas-prices/, bad);
    }
  });
});

describe('loadConfig', () => {
  let dir: string;
  let home: string;
  let pristineToml: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-config-'));
    home = join(dir, 'home');
    initHome(home, { chainId: 'kestrel_777-1', dev: true });
    pristineToml = readFileSync(homePaths(home).appToml, 'utf8');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const withToml = (edit: (t: string) => string) => writeFileSync(homePaths(home).appToml, edit(pristineToml));

  test('defaults from a fresh home', () => {
    withToml((t) => t);
    const c = loadConfig(home, {}, DEFAULT_CHAIN_ID);
    assert.equal(c.chainId, 'kestrel_777-1', 'chain id comes from genesis.json');
    assert.equal(c.evmChainId, 777n);
    assert.equal(c.blockTimeMs, 0);
    assert.equal(c.minGasPrice, 0n);
    assert.equal(c.minGasPriceFromFlag, false);
    assert.equal(c.consensus, 'solo');
    assert.equal(c.dev, false);
    assert.equal(c.jsonRpc.enable, true);
    assert.equal(c.jsonRpc.address, '127.0.0.1:8545');
    assert.equal(c.jsonRpc.wsAddress, '127.0.0.1:8546');
    assert.deepEqual(c.jsonRpc.api, ['eth', 'net', 'web3', 'txpool', 'debug', 'trace', 'ots', 'personal', 'miner']);
    assert.equal(c.jsonRpc.gasCap, 25_000_000n);
    assert.equal(c.jsonRpc.evmTimeoutMs, 5000);
    assert.equal(c.jsonRpc.tracerTimeoutCapMs, 60_000);
    assert.equal(c.jsonRpc.tracerMemoryBytes, 64 * 1024 * 1024);
    assert.equal(c.jsonRpc.httpTimeoutMs, 30_000);
    assert.equal(c.jsonRpc.maxBodyBytes, 5_242_880);
    assert.equal(c.jsonRpc.maxBatchItems, 1000);
    assert.deepEqual(c.jsonRpc.corsOrigins, ['*']);
    assert.equal(c.jsonRpc.compat, 'none');
    assert.equal(c.explicitFlags.size, 0);
  });

  test('defaults apply when app.toml is missing (home without a genesis uses the default chain id)', () => {
    const bare = join(dir, 'bare');
    const c = loadConfig(bare, {}, DEFAULT_CHAIN_ID);
    assert.equal(c.chainId, DEFAULT_CHAIN_ID);
    assert.equal(c.evmChainId, 9000n);
    assert.equal(c.jsonRpc.gasCap, 25_000_000n);
  });

  test('the dev toolkit: on with --dev or [dev] toolkit = true, off otherwise', () => {
    withToml((t) => t);
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).devToolkit, false);
    assert.equal(loadConfig(home, { dev: true }, DEFAULT_CHAIN_ID).devToolkit, true);
    withToml((t) => `${t}\n[dev]\ntoolkit = true\n`);
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).devToolkit, true);
    withToml((t) => t);
  });

  test('precedence: defaults < app.toml < flags', () => {
    withToml((t) =>
      t
        .replace('block-time = "0"', 'block-time = "1s"')
        .replace('minimum-gas-prices = "0akestrel"', 'minimum-gas-prices = "5akestrel"')
        .replace('address = "127.0.0.1:8545"', 'address = "0.0.0.0:1111"')
        .replace('ws-address = "127.0.0.1:8546"', 'ws-address = "0.0.0.0:2222"')
        .replace('gas-cap = 25000000', 'gas-cap = 1234')
        .replace('api = "eth,net,web3,txpool,debug,trace,ots,personal,miner"', 'api = "eth,net"'),
    );
    const fromFile = loadConfig(home, {}, DEFAULT_CHAIN_ID);
    assert.equal(fromFile.blockTimeMs, 1000);
    assert.equal(fromFile.minGasPrice, 5n);
    assert.equal(fromFile.jsonRpc.address, '0.0.0.0:1111');
    assert.equal(fromFile.jsonRpc.wsAddress, '0.0.0.0:2222');
    assert.equal(fromFile.jsonRpc.gasCap, 1234n);
    assert.deepEqual(fromFile.jsonRpc.api, ['eth', 'net']);
    assert.equal(fromFile.jsonRpc.logsCap, 10_000, 'untouched keys keep their defaults');

    const flagged = loadConfig(
      home,
      {
        'block-time': '250ms',
        'minimum-gas-prices': '9akestrel',
        'json-rpc.address': '127.0.0.1:3333',
        'json-rpc.api': 'web3',
        dev: true,
        'chain-id': 'other_42-1',
      },
      DEFAULT_CHAIN_ID,
    );
    assert.equal(flagged.blockTimeMs, 250);
    assert.equal(flagged.minGasPrice, 9n);
    assert.equal(flagged.minGasPriceFromFlag, true);
    assert.equal(flagged.jsonRpc.address, '127.0.0.1:3333');
    assert.equal(flagged.jsonRpc.wsAddress, '0.0.0.0:2222', 'file value kept where no flag');
    assert.deepEqual(flagged.jsonRpc.api, ['web3']);
    assert.equal(flagged.dev, true);
    assert.equal(flagged.chainId, 'other_42-1');
    assert.equal(flagged.evmChainId, 42n);
    assert.ok(flagged.explicitFlags.has('json-rpc.address'));
    assert.ok(!flagged.explicitFlags.has('json-rpc.ws-address'));
  });

  test('api as a TOML array is accepted', () => {
    withToml((t) => t.replace('api = "eth,net,web3,txpool,debug,trace,ots,personal,miner"', 'api = ["eth", "web3"]'));
    assert.deepEqual(loadConfig(home, {}, DEFAULT_CHAIN_ID).jsonRpc.api, ['eth', 'web3']);
  });

  test('validation errors', () => {
    withToml((t) => t);
    assert.throws(
      () => loadConfig(home, { 'json-rpc.api': 'eth,bogus' }, DEFAULT_CHAIN_ID),
      /invalid namespace "bogus"/,
    );
    assert.throws(
      () => loadConfig(home, { 'json-rpc.api': 'eth,net,eth' }, DEFAULT_CHAIN_ID),
      /repeated API namespace 'eth'/,
    );
    assert.throws(
      () => loadConfig(home, { 'json-rpc.compat': 'geth' }, DEFAULT_CHAIN_ID),
      /invalid json-rpc.compat "geth"/,
    );
    assert.throws(() => loadConfig(home, { consensus: 'pbft' }, DEFAULT_CHAIN_ID), /invalid consensus "pbft"/);
    assert.throws(() => loadConfig(home, { 'block-time': 'soon' }, DEFAULT_CHAIN_ID), /invalid duration/);
    assert.throws(
      () => loadConfig(home, { 'minimum-gas-prices': 'lots' }, DEFAULT_CHAIN_ID),
      /invalid minimum-gas-prices/,
    );
    assert.throws(() => loadConfig(home, { 'chain-id': 'nope' }, DEFAULT_CHAIN_ID), /invalid chain-id/);
    assert.equal(loadConfig(home, { 'json-rpc.compat': 'ethermint' }, DEFAULT_CHAIN_ID).jsonRpc.compat, 'ethermint');
    // The HTTP/WS back end: auto by default, uws or node when forced, anything else refused.
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).jsonRpc.transport, 'auto');
    assert.equal(loadConfig(home, { 'json-rpc.transport': 'node' }, DEFAULT_CHAIN_ID).jsonRpc.transport, 'node');
    assert.equal(loadConfig(home, { 'json-rpc.transport': 'uws' }, DEFAULT_CHAIN_ID).jsonRpc.transport, 'uws');
    assert.throws(
      () => loadConfig(home, { 'json-rpc.transport': 'epoll' }, DEFAULT_CHAIN_ID),
      /invalid json-rpc.transport "epoll" \(use auto, uws or node\)/,
    );
    // Busy-polling after an answer: 100 µs by default, 0 turns it off, past 10 ms refused.
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).jsonRpc.busyPollUs, 100);
    assert.equal(loadConfig(home, { 'json-rpc.busy-poll-us': '0' }, DEFAULT_CHAIN_ID).jsonRpc.busyPollUs, 0);
    assert.throws(
      () => loadConfig(home, { 'json-rpc.busy-poll-us': '20000' }, DEFAULT_CHAIN_ID),
      /json-rpc.busy-poll-us must be at most 10000/,
    );
    assert.throws(
      () => loadConfig(home, { 'json-rpc.busy-poll-us': '-1' }, DEFAULT_CHAIN_ID),
      /json-rpc.busy-poll-us must be a non-negative integer/,
    );
    // Coalesced HTTP writes: on by default, "false" turns them off, anything but a boolean refused.
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).jsonRpc.coalesceWrites, true);
    assert.equal(
      loadConfig(home, { 'json-rpc.coalesce-writes': 'false' }, DEFAULT_CHAIN_ID).jsonRpc.coalesceWrites,
      false,
    );
    assert.throws(
      () => loadConfig(home, { 'json-rpc.coalesce-writes': 'no' }, DEFAULT_CHAIN_ID),
      /json-rpc.coalesce-writes must be true or false/,
    );
  });

  test('validation errors from app.toml', () => {
    withToml((t) => t.replace('compat = "none"', 'compat = "bad"'));
    assert.throws(() => loadConfig(home, {}, DEFAULT_CHAIN_ID), /invalid json-rpc.compat "bad"/);
    withToml((t) => t.replace('gas-cap = 25000000', 'gas-cap = -5'));
    assert.throws(() => loadConfig(home, {}, DEFAULT_CHAIN_ID), /gas-cap must be a non-negative integer/);
    withToml((t) => t.replace('address = "127.0.0.1:8545"', 'address = 8545'));
    assert.throws(() => loadConfig(home, {}, DEFAULT_CHAIN_ID), /json-rpc.address must be a string/);
    withToml((t) => t.replace('tracer-timeout-cap = "60s"', 'tracer-timeout-cap = "0s"'));
    assert.throws(() => loadConfig(home, {}, DEFAULT_CHAIN_ID), /tracer-timeout-cap must be greater than zero/);
    withToml((t) => t.replace('engine = "solo"', 'engine = "raft"'));
    assert.throws(() => loadConfig(home, {}, DEFAULT_CHAIN_ID), /invalid consensus "raft"/);
    withToml((t) => t);
  });
});
