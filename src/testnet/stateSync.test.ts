// The [statesync] settings of a joining node: CometBFT itself (its config check, run by every command) accepts
// them in a config.toml it wrote, and refuses the discovery time just below the floor they sit on.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readTomlValue } from '../config/appToml.ts';
import { DEFAULT_COMETBFT, editCometConfig } from './layout.ts';
import { stateSyncValues } from './stateSync.ts';

const needComet =
  existsSync(DEFAULT_COMETBFT) || process.env.CI === 'true'
    ? false
    : 'CometBFT not installed: npm run cometbft:install';
const trust = {
  rpcServers: ['tcp://127.0.0.1:26657', 'tcp://127.0.0.1:26667'],
  height: 300,
  hash: 'ab'.repeat(32),
};

describe('state-sync settings', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('are accepted by CometBFT; a discovery time below its floor is not', { skip: needComet }, () => {
    const home = mkdtempSync(join(tmpdir(), 'kestrel-statesync-cfg-'));
    dirs.push(home);
    const comet = (...args: string[]) => spawnSync(DEFAULT_COMETBFT, [...args, '--home', home], { encoding: 'utf8' });
    assert.equal(comet('init').status, 0);
    const toml = join(home, 'config', 'config.toml');
    editCometConfig(toml, stateSyncValues(trust));
    const ok = comet('show-node-id');
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(readTomlValue(toml, 'statesync', 'trust_hash'), 'AB'.repeat(32));
    assert.equal(readTomlValue(toml, 'statesync', 'discovery_time'), '5s');
    editCometConfig(toml, [['statesync', 'discovery_time', '4s']]);
    const bad = comet('show-node-id');
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /discovery time must be 0s or greater than five seconds/);
  });

  it('refuse a single RPC server, a bad height or hash', () => {
    assert.throws(() => stateSyncValues({ ...trust, rpcServers: [trust.rpcServers[0]!] }), /two RPC servers/);
    assert.throws(() => stateSyncValues({ ...trust, height: 0 }), /trust height/);
    assert.throws(() => stateSyncValues({ ...trust, hash: 'abc' }), /trust hash/);
  });
});
