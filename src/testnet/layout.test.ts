// The testnet layout: port plan, peers, merged genesis, and a real `kestreld testnet` run against the installed CometBFT.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { DEFAULT_COMETBFT, mergeGenesis, peersOf, REPO_ROOT } from './layout.ts';
import { readManifest } from './manifest.ts';
import { DEFAULT_BASE_PORT, planPorts, PORT_STRIDE } from './ports.ts';

// CI installs CometBFT before the tests (.ci/run); elsewhere the CometBFT-backed cases say how to get it.
const haveComet = existsSync(DEFAULT_COMETBFT);
const needComet = haveComet || process.env.CI === 'true' ? false : 'CometBFT not installed: npm run cometbft:install';

describe('port plan', () => {
  it('gives every node its own ports, all distinct, node0 on the CometBFT defaults', () => {
    const plan = planPorts(DEFAULT_BASE_PORT, 4);
    const all = plan.flatMap((p) => Object.values(p));
    assert.equal(new Set(all).size, all.length);
    assert.deepEqual([plan[0]!.p2p, plan[0]!.rpc, plan[0]!.abci], [26656, 26657, 26658]);
    for (const [i, p] of plan.entries()) {
      for (const port of Object.values(p)) {
        assert.ok(port >= DEFAULT_BASE_PORT + i * PORT_STRIDE && port < DEFAULT_BASE_PORT + (i + 1) * PORT_STRIDE);
      }
    }
  });

  it('refuses counts and bases that leave the port range', () => {
    assert.throws(() => planPorts(26650, 0), /--validators must be an integer from 1/);
    assert.throws(() => planPorts(26650, 1.5), /--validators/);
    assert.throws(() => planPorts(80, 4), /within 1024\.\.65535/);
    assert.throws(() => planPorts(65530, 1), /65530\.\.65539/);
    assert.equal(planPorts(65526, 1)[0]!.abci, 65534);
  });
});

describe('peers and genesis', () => {
  it('peers every node with all the others, never itself', () => {
    const nodes = planPorts(30000, 3).map((ports, i) => ({ nodeId: String(i).repeat(40), ports }));
    assert.equal(peersOf(1, nodes), `${'0'.repeat(40)}@127.0.0.1:30006,${'2'.repeat(40)}@127.0.0.1:30026`);
  });

  it('takes chain id, time, gas limit and app_state from Kestrel and sets every power', () => {
    const comet = {
      genesis_time: '2020-01-01T00:00:00Z',
      chain_id: 'chain-abc',
      consensus_params: { block: { max_bytes: '1', max_gas: '-1' } },
      validators: [{ address: 'A', pub_key: {}, power: '1', name: 'node0' }],
    };
    const kestrel = {
      genesis_time: '2026-01-02T03:04:05.000Z',
      chain_id: 'kestrel_9000-1',
      consensus_params: { block: { max_gas: '30000000' } },
      app_state: { x: 1 },
    };
    const g = mergeGenesis(comet, kestrel, 7);
    assert.deepEqual(g, {
      genesis_time: kestrel.genesis_time,
      chain_id: 'kestrel_9000-1',
      consensus_params: { block: { max_bytes: '1', max_gas: '30000000' } },
      validators: [{ address: 'A', pub_key: {}, power: '7', name: 'node0' }],
      app_state: { x: 1 },
    });
  });
});

describe('kestreld testnet (real CometBFT)', { skip: needComet }, () => {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-testnet-layout-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  const kestreld = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/kestreld.js', 'testnet', ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });

  it('lays out four validators with shared genesis files, distinct ports and full peering', () => {
    const dir = join(base, 'net');
    const r = kestreld(
      '--validators',
      '4',
      '--output',
      dir,
      '--base-port',
      '31000',
      '--chain-id',
      'kestrel_777-1',
      '--power',
      '25',
      '--dev',
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /testnet of 4 validators \(chain-id kestrel_777-1/);
    const m = readManifest(dir);
    assert.equal(m.nodes.length, 4);
    assert.equal(m.cometbftVersion, execFileSync(DEFAULT_COMETBFT, ['version'], { encoding: 'utf8' }).trim());

    const cometGenesis = m.nodes.map((n) => readFileSync(join(dir, n.cometHome, 'config', 'genesis.json'), 'utf8'));
    const kestrelGenesis = m.nodes.map((n) => readFileSync(join(dir, n.appHome, 'config', 'genesis.json'), 'utf8'));
    assert.equal(new Set(cometGenesis).size, 1, 'one CometBFT genesis for all');
    assert.equal(new Set(kestrelGenesis).size, 1, 'one Kestrel genesis for all');
    const cg = JSON.parse(cometGenesis[0]!);
    const kg = JSON.parse(kestrelGenesis[0]!);
    assert.equal(cg.chain_id, 'kestrel_777-1');
    assert.equal(kg.chain_id, 'kestrel_777-1');
    assert.equal(cg.genesis_time, kg.genesis_time);
    assert.deepEqual(cg.app_state, kg.app_state);
    assert.equal(kg.app_state.bank.balances.length, 10, '--dev funds the ten dev accounts');
    assert.deepEqual(
      cg.validators.map((v: { power: string }) => v.power),
      ['25', '25', '25', '25'],
    );
    // Each validator key in the genesis is the one in that node's home.
    for (const [i, n] of m.nodes.entries()) {
      const key = JSON.parse(readFileSync(join(dir, n.cometHome, 'config', 'priv_validator_key.json'), 'utf8'));
      assert.equal(cg.validators[i].address, key.address);
      // …and its fees go to the account of that node's Kestrel validator key.
      const operator = JSON.parse(readFileSync(join(dir, n.appHome, 'config', 'priv_validator_key.json'), 'utf8'));
      assert.deepEqual(kg.app_state.fee_recipients[i], {
        validator: key.address,
        recipient: operator.address.toLowerCase(),
      });
      const id = execFileSync(DEFAULT_COMETBFT, ['show-node-id', '--home', join(dir, n.cometHome)], {
        encoding: 'utf8',
      }).trim();
      assert.equal(n.nodeId, id);
    }

    const ports = m.nodes.flatMap((n) => Object.values(n.ports));
    assert.equal(new Set(ports).size, ports.length, 'no port used twice');
    for (const [i, n] of m.nodes.entries()) {
      const cfg = parseToml(readFileSync(join(dir, n.cometHome, 'config', 'config.toml'), 'utf8')) as any;
      assert.equal(cfg.proxy_app, `tcp://127.0.0.1:${n.ports.abci}`);
      assert.equal(cfg.rpc.laddr, `tcp://127.0.0.1:${n.ports.rpc}`);
      assert.equal(cfg.p2p.laddr, `tcp://127.0.0.1:${n.ports.p2p}`);
      assert.equal(cfg.p2p.addr_book_strict, false);
      assert.equal(cfg.p2p.allow_duplicate_ip, true);
      assert.equal(cfg.consensus.timeout_commit, '200ms');
      assert.equal(cfg.consensus.timeout_propose, '1s');
      const peers = (cfg.p2p.persistent_peers as string).split(',').sort();
      const want = m.nodes
        .filter((_, j) => j !== i)
        .map((o) => `${o.nodeId}@127.0.0.1:${o.ports.p2p}`)
        .sort();
      assert.deepEqual(peers, want);

      const app = parseToml(readFileSync(join(dir, n.appHome, 'config', 'app.toml'), 'utf8')) as any;
      assert.equal(app.consensus.engine, 'cometbft');
      assert.equal(app.abci.laddr, `tcp://127.0.0.1:${n.ports.abci}`);
      assert.equal(app.comet.rpc, `tcp://127.0.0.1:${n.ports.rpc}`, 'transactions go to its own CometBFT');
      assert.equal(app['json-rpc'].address, `127.0.0.1:${n.ports.ethHttp}`);
      assert.equal(app['json-rpc']['ws-address'], `127.0.0.1:${n.ports.ethWs}`);
      assert.equal(app.grpc.address, `127.0.0.1:${n.ports.grpc}`);
      assert.equal(app.rpc.laddr, `tcp://127.0.0.1:${n.ports.appRpc}`);
    }
    for (const s of ['start.sh', 'stop.sh']) assert.ok(statSync(join(dir, s)).mode & 0o100, `${s} is executable`);
    assert.ok(!existsSync(join(dir, '.cometbft-testnet')), 'no scratch directory left behind');
  });

  it('refuses a non-empty output directory, a missing binary and bad flags, with the reason', () => {
    const used = join(base, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'x'), '');
    assert.match(kestreld('--output', used).stderr, /exists and is not empty/);
    assert.match(
      kestreld('--output', join(base, 'a'), '--cometbft', join(base, 'nope')).stderr,
      /CometBFT binary not found .*npm run cometbft:install/,
    );
    assert.match(kestreld('--output', join(base, 'b'), '--chain-id', 'bad').stderr, /invalid chain-id "bad"/);
    assert.match(
      kestreld('--output', join(base, 'c'), '--timeout-commit', 'soon').stderr,
      /--timeout-commit must be a duration/,
    );
    assert.match(kestreld('--output', join(base, 'd'), '--power', '0').stderr, /--power must be an integer/);
    assert.match(kestreld('stop', join(base, 'nothing')).stderr, /not a testnet directory/);
    for (const d of ['a', 'b', 'c', 'd']) assert.ok(!existsSync(join(base, d)), `nothing written for ${d}`);
  });
});
