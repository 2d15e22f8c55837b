// State sync: four validators take a snapshot every 50 blocks while they make ≥ 200 blocks with transfers. A 5th
// node joins by replaying every block from genesis (block sync), a 6th by CometBFT state sync from a snapshot;
// both times are measured, and both nodes agree with the validators on block hashes, state roots, balances and
// proofs at the head. On the state-synced node, state below its snapshot height answers geth's missing-trie-node
// error. Slow (a few minutes): KESTREL_SKIP_STATESYNC=1 skips it in a quick local run; KESTREL_STATESYNC_BLOCKS=N
// lengthens the chain (default 210).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTomlValue } from '../../src/config/appToml.ts';
import { homePaths, initHome } from '../../src/node/home.ts';
import { appConfigValues, cometConfigValues, editCometConfig } from '../../src/testnet/layout.ts';
import type { ManifestNode } from '../../src/testnet/manifest.ts';
import { planPorts } from '../../src/testnet/ports.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { COMETBFT_BIN, cometbftMissing, cometRpc, CometNet, CometNode, freePortBlock } from '../helpers/cometbft.ts';
import { rpcResult, sleep, waitFor } from '../helpers/node.ts';
import { signTx } from '../helpers/tx.ts';

const INTERVAL = 50;
const MIN_BLOCKS = Number(process.env.KESTREL_STATESYNC_BLOCKS ?? 210);

/** Lays out a non-validator node `i` of the network (its own ports block), optionally joining by state sync. */
function addNode(
  net: CometNet,
  base: number,
  i: number,
  stateSync?: { rpc: string[]; height: number; hash: string },
): CometNode {
  const name = `node${i}`;
  const ports = planPorts(base, i + 1)[i]!;
  const spec: ManifestNode = { name, nodeId: '', ports, cometHome: `${name}/cometbft`, appHome: `${name}/kestrel` };
  const cometHome = join(net.dir, spec.cometHome);
  const appHome = join(net.dir, spec.appHome);
  mkdirSync(join(net.dir, name), { recursive: true });
  execFileSync(COMETBFT_BIN, ['init', '--home', cometHome], { stdio: 'ignore' });
  const v0 = net.nodes[0]!.spec;
  copyFileSync(join(net.dir, v0.cometHome, 'config', 'genesis.json'), join(cometHome, 'config', 'genesis.json'));
  const peers = net.nodes.map((n) => `${n.spec.nodeId}@127.0.0.1:${n.spec.ports.p2p}`).join(',');
  const values = cometConfigValues({ timeoutCommit: '200ms', timeoutPropose: '1s' }, name, ports, peers);
  if (stateSync) {
    values.push(
      ['statesync', 'enable', true],
      ['statesync', 'rpc_servers', stateSync.rpc.join(',')],
      ['statesync', 'trust_height', stateSync.height],
      ['statesync', 'trust_hash', stateSync.hash],
      ['statesync', 'discovery_time', '5s'],
    );
  }
  editCometConfig(join(cometHome, 'config', 'config.toml'), values);
  spec.nodeId = execFileSync(COMETBFT_BIN, ['show-node-id', '--home', cometHome], { encoding: 'utf8' }).trim();
  initHome(appHome, { chainId: net.manifest.chainId, dev: true, overwrite: true });
  copyFileSync(homePaths(join(net.dir, v0.appHome)).genesis, homePaths(appHome).genesis);
  for (const [s, k, v] of appConfigValues(ports)) setTomlValue(homePaths(appHome).appToml, s, k, v);
  return new CometNode(net, spec);
}

/** Waits until `n` has caught up to `h`; resolves to the milliseconds since `t0`. */
async function joined(n: CometNode, h: number, t0: number, timeoutMs: number): Promise<number> {
  await waitFor(
    `${n.name} caught up to ${h}`,
    async () => {
      try {
        const s = await cometRpc(n.rpc, 'status');
        if (s.sync_info.catching_up || Number(s.sync_info.latest_block_height) < h) return undefined;
        return Number(await rpcResult(n.eth, 'eth_blockNumber', [])) >= h ? true : undefined;
      } catch {
        return undefined;
      }
    },
    timeoutMs,
  );
  return Date.now() - t0;
}

const skip = process.env.KESTREL_SKIP_STATESYNC === '1' ? 'KESTREL_SKIP_STATESYNC=1' : cometbftMissing();

describe('state sync: a 5th node joins from a snapshot', { skip, timeout: 1_200_000 }, () => {
  let net: CometNet | undefined;
  let base = 0;
  const extra: CometNode[] = [];
  let sending = true;
  let sender: Promise<void> | undefined;
  before(async () => {
    base = await freePortBlock(6);
    net = CometNet.create({ validators: 4, basePort: base });
    for (const n of net.nodes) {
      const toml = homePaths(join(net.dir, n.spec.appHome)).appToml;
      setTomlValue(toml, 'state-sync', 'snapshot-interval', INTERVAL);
      setTomlValue(toml, 'state-sync', 'snapshot-keep-recent', 2);
    }
    await net.startAll();
    await Promise.all(net.nodes.map((n) => n.waitHeight(2, 120_000)));
    // Transfers all along: each of three senders sends to a fresh recipient, one tx in flight per sender.
    const n0 = net.nodes[0]!;
    sender = (async () => {
      let k = 0;
      while (sending) {
        for (const from of DEV_ACCOUNTS.slice(5, 8)) {
          try {
            const to = '0x' + (0x1000 + (k++ % 40)).toString(16).padStart(40, '0');
            const tx = await signTx(n0.eth, from.privateKey, { to, value: BigInt(k) });
            await rpcResult(n0.eth, 'eth_sendRawTransaction', [tx.raw]);
          } catch {
            // A nonce raced with the previous tx's inclusion: the next round reads the nonce again.
          }
        }
        await sleep(300);
      }
    })();
  });
  afterEach((t) => {
    if ((t as { passed?: boolean }).passed === false) {
      net?.printLogs(`failed: ${(t as { name?: string }).name}`);
      for (const n of extra) process.stderr.write(n.logs() + '\n');
    }
  });
  after(async () => {
    sending = false;
    await sender;
    await Promise.all(extra.map((n) => n.kill()));
    await net?.dispose();
  });

  it(`joins by replay and by state sync after ${MIN_BLOCKS} blocks; both agree with the validators`, async () => {
    const n0 = net!.nodes[0]!;
    await n0.waitHeight(MIN_BLOCKS, 600_000);
    const taken = readdirSync(join(net!.dir, n0.spec.appHome, 'data', 'snapshots')).filter((d) => /^\d+$/.test(d));
    // keep-recent 2, plus at most the one being rotated in at this very moment.
    assert.ok(taken.length >= 2 && taken.length <= 3, `snapshots kept: ${taken.join(', ')}`);
    assert.ok(taken.every((h) => Number(h) % INTERVAL === 0 && Number(h) >= MIN_BLOCKS - 2 * INTERVAL));

    // Replay: a fresh node blocksyncs every block from genesis.
    const replay = addNode(net!, base, 4);
    extra.push(replay);
    let target = (await n0.height())!;
    let t0 = Date.now();
    await replay.start();
    const replayMs = await joined(replay, target, t0, 600_000);

    // State sync: trust a recent header of the validators; the node restores the newest snapshot and follows on.
    const trustHeight = (await n0.height())! - 2;
    const trustHash = (await cometRpc(n0.rpc, 'block', { height: String(trustHeight) })).block_id.hash as string;
    const synced = addNode(net!, base, 5, {
      rpc: [`tcp://127.0.0.1:${n0.spec.ports.rpc}`, `tcp://127.0.0.1:${net!.nodes[1]!.spec.ports.rpc}`],
      height: trustHeight,
      hash: trustHash,
    });
    extra.push(synced);
    target = (await n0.height())!;
    t0 = Date.now();
    await synced.start();
    const syncMs = await joined(synced, target, t0, 600_000);
    process.stdout.write(
      `# join after ${target} blocks: replay from genesis ${replayMs} ms, state sync ${syncMs} ms\n`,
    );

    // Same chain at a common recent height: block hash, state root, balances and proofs.
    sending = false;
    await sender;
    const h = Math.min(
      ...(await Promise.all(
        [n0, replay, synced].map(async (n) => Number(await rpcResult(n.eth, 'eth_blockNumber', []))),
      )),
    );
    const tag = '0x' + h.toString(16);
    const probe = [
      DEV_ACCOUNTS[5]!.address,
      DEV_ACCOUNTS[6]!.address,
      '0x' + (0x1000 + 3).toString(16).padStart(40, '0'),
    ];
    const want = await rpcResult(n0.eth, 'eth_getBlockByNumber', [tag, false]);
    for (const n of [replay, synced]) {
      const got = await rpcResult(n.eth, 'eth_getBlockByNumber', [tag, false]);
      assert.equal(got.hash, want.hash, `block hash at ${h} on ${n.name}`);
      assert.equal(got.stateRoot, want.stateRoot, `state root at ${h} on ${n.name}`);
      for (const a of probe) {
        assert.equal(
          await rpcResult(n.eth, 'eth_getBalance', [a, tag]),
          await rpcResult(n0.eth, 'eth_getBalance', [a, tag]),
        );
        assert.deepEqual(
          await rpcResult(n.eth, 'eth_getProof', [a, ['0x0'], tag]),
          await rpcResult(n0.eth, 'eth_getProof', [a, ['0x0'], tag]),
        );
      }
    }
    // The state-synced node has no state before its snapshot: geth's error, not a wrong answer.
    const first = Math.floor(trustHeight / INTERVAL) * INTERVAL;
    const before = '0x' + (first - 10).toString(16);
    const r = await fetch(synced.eth, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBalance',
        params: [DEV_ACCOUNTS[5]!.address, before],
      }),
    });
    const body = (await r.json()) as { error?: { message: string } };
    assert.match(
      body.error?.message ?? '',
      /^missing trie node [0-9a-f]{64} \(path \) state 0x[0-9a-f]{64} is not available$/,
    );
  });
});
