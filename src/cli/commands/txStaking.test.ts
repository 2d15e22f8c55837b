// The CLI's side of the staking commands without a node: the precompile calls it encodes match the precompiles'
// method tables (the CLI may not import the app, so it writes the ABIs out), and its argument parsing and SDK-shaped
// printing.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { distributionMethods } from '../../app/staking/precompiles/distribution.ts';
import { slashingMethods } from '../../app/staking/precompiles/others.ts';
import { stakingMethods } from '../../app/staking/precompiles/staking.ts';
import { decString, durationString, timeString } from '../output/cosmosJson.ts';
import { consAddressArg, validatorArg } from './queryStaking.ts';
import { bondAmount, consensusPubkey, decArg, PRECOMPILE_CALLS } from './txStaking.ts';

describe('kestreld tx staking|slashing|distribution, offline', () => {
  it('calls the precompiles with their own method names and input types', () => {
    const tables: Record<number, ReturnType<typeof stakingMethods>> = {
      0x800: stakingMethods(),
      0x801: distributionMethods(),
      0x806: slashingMethods(),
    };
    for (const call of Object.values(PRECOMPILE_CALLS)) {
      const m = tables[call.to]!.find((x) => x.name === call.name);
      assert.ok(m, `${call.name} at 0x${call.to.toString(16)}`);
      assert.deepEqual([...call.inputs], m.inputs, call.name);
      assert.equal(m.writes, true, `${call.name} is a transaction`);
    }
  });

  it('parses amounts of the bond denom and decimal rates', () => {
    assert.equal(bondAmount('100akestrel', 'akestrel'), 100n);
    assert.equal(bondAmount('7', 'akestrel'), 7n);
    assert.throws(() => bondAmount('5stake', 'akestrel'), /^Error: invalid denom stake: the bond denom is akestrel$/);
    assert.throws(() => bondAmount('0akestrel', 'akestrel'), /must be positive/);
    assert.throws(() => bondAmount('-1', 'akestrel'), /invalid amount "-1"/);
    assert.throws(() => bondAmount('1.5akestrel', 'akestrel'), /invalid amount/);
    assert.equal(decArg('commission-rate', '0.1'), 10n ** 17n);
    assert.equal(decArg('commission-rate', '1'), 10n ** 18n);
    assert.throws(() => decArg('commission-rate', '10%'), /^Error: invalid --commission-rate "10%"/);
  });

  it('reads the consensus key from CometBFT, --pubkey as base64 or the SDK JSON; refuses Kestrel’s account key', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const dir = mkdtempSync(join(tmpdir(), 'kestrel-pv-'));
    try {
      mkdirSync(join(dir, 'comet', 'config'), { recursive: true });
      mkdirSync(join(dir, 'kestrel', 'config'), { recursive: true });
      writeFileSync(
        join(dir, 'comet', 'config', 'priv_validator_key.json'),
        JSON.stringify({ address: 'AB', pub_key: { type: 'tendermint/PubKeyEd25519', value: key }, priv_key: {} }),
      );
      writeFileSync(
        join(dir, 'kestrel', 'config', 'priv_validator_key.json'),
        JSON.stringify({ address: '0x00', priv_key: '0x11' }),
      );
      assert.equal(consensusPubkey(undefined, join(dir, 'comet')), key);
      assert.throws(() => consensusPubkey(undefined, join(dir, 'kestrel')), /is not CometBFT's ed25519 validator key/);
      assert.throws(() => consensusPubkey(undefined, join(dir, 'none')), /does not exist \(pass --cometbft-home/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(consensusPubkey(key, '/nowhere'), key);
    assert.equal(consensusPubkey(JSON.stringify({ '@type': '/cosmos.crypto.ed25519.PubKey', key }), '/nowhere'), key);
    assert.throws(() => consensusPubkey('AAAA', '/nowhere'), /want the base64 of a 32-byte ed25519 key/);
  });

  it('addresses: hex converted, bech32 checked with the SDK wording; consensus keys to valcons', () => {
    const hex = '0x' + '11'.repeat(20);
    const val = validatorArg(hex, 'kestrel');
    assert.match(val, /^kestrelvaloper1/);
    assert.equal(validatorArg(val, 'kestrel'), val);
    assert.throws(
      () => validatorArg('kestrel1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquuhdt8', 'kestrel'),
      /invalid Bech32 prefix/,
    );
    const key = Buffer.alloc(32, 9).toString('base64');
    const cons = consAddressArg(key, 'kestrel');
    assert.match(cons, /^kestrelvalcons1/);
    assert.equal(consAddressArg(JSON.stringify({ '@type': '/cosmos.crypto.ed25519.PubKey', key }), 'kestrel'), cons);
    assert.equal(consAddressArg(cons, 'kestrel'), cons);
    assert.throws(() => consAddressArg('not-a-key', 'kestrel'), /expected a kestrelvalcons address or a public key/);
    assert.throws(() => consAddressArg('nope', 'kestrel'), /an ed25519 consensus public key has 32 bytes, got 3/);
  });

  it('prints decimals, times and durations as the SDK CLI does', () => {
    assert.equal(decString('1500000000000000000'), '1.500000000000000000');
    assert.equal(decString('0'), '0.000000000000000000');
    assert.equal(decString('123'), '0.000000000000000123');
    assert.equal(timeString({ seconds: 0n, nanos: 0 }), '1970-01-01T00:00:00Z');
    assert.equal(timeString({ seconds: 1_700_000_000n, nanos: 500_000_000 }), '2023-11-14T22:13:20.5Z');
    assert.equal(durationString({ seconds: 1_814_400n, nanos: 0 }), '1814400s');
  });
});
