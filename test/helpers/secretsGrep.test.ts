// The churn run's secrets grep finds a token or key written to a node's log, whole or split, and nothing in clean logs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { nodeFiles, readManifest } from '../../src/testnet/manifest.ts';
import { REPO_ROOT } from './node.ts';
import { leakedSecrets, networkSecrets } from './secretsGrep.ts';

describe('secretsGrep', () => {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-secrets-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  const dir = join(base, 'net');
  const r = spawnSync(
    process.execPath,
    ['bin/kestreld.js', 'testnet', '--validators', '2', '--output', dir, '--base-port', '23000', '--dev'],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const nodes = readManifest(dir).nodes.map((spec) => ({ name: spec.name, spec }));
  const net = { dir, nodes };
  const key = new Uint8Array(32).fill(0xab);

  it('collects tokens, validator and node keys and sender keys, each once', () => {
    const names = networkSecrets(net, [key]).map((s) => s.name);
    assert.equal(names.filter((n) => n.endsWith('auth.token')).length, 2, names.join(', '));
    assert.equal(names.filter((n) => n.endsWith('node_key.json')).length, 2, names.join(', '));
    assert.ok(names.filter((n) => n.endsWith('priv_validator_key.json')).length >= 2, names.join(', '));
    assert.ok(names.includes('sender 0 private key'));
  });

  it('finds a leaked token and a split key, and nothing in clean logs', () => {
    for (const n of nodes) {
      const f = nodeFiles(dir, n.spec);
      mkdirSync(f.dir, { recursive: true });
      writeFileSync(f.appLog, 'INF committed block height=1\n');
      writeFileSync(f.cometLog, 'I[...] executed block height=1\n');
    }
    assert.deepEqual(leakedSecrets(net, [key]), []);
    const f0 = nodeFiles(dir, nodes[0]!.spec);
    const token = readFileSync(join(f0.appHome, 'config', 'auth.token'), 'utf8').trim();
    appendFileSync(f0.appLog, `request with Bearer ${token}\n`);
    const hex = Buffer.from(key).toString('hex').toUpperCase();
    appendFileSync(nodeFiles(dir, nodes[1]!.spec).cometLog, `raw ${hex.slice(0, 40)}\n${hex.slice(20)}\n`);
    assert.deepEqual(
      leakedSecrets(net, [key]).map((l) => l.replace(dir, '<net>')),
      ['node0 auth.token in <net>/node0/app.log', 'sender 0 private key in <net>/node1/cometbft.log'],
    );
  });
});
