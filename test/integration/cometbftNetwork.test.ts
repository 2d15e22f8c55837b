// Four Kestrel validators behind real CometBFT on 127.0.0.1 (laid out by `kestreld testnet`): a transaction sent to
// one validator is mined identically everywhere, eth_ answers agree, and the network survives the loss of one
// validator, halts without a two-thirds majority, resumes, and a validator that missed blocks replays and catches up.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { nodeFiles } from '../../src/testnet/manifest.ts';
import { isAlive, readPid } from '../../src/testnet/processes.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { cometbftMissing, cometRpc, CometNet, freePortBlock, type CometNode } from '../helpers/cometbft.ts';
import { REPO_ROOT, rpcResult, sleep, waitFor, waitForReceipt } from '../helpers/node.ts';
import { signTx } from '../helpers/tx.ts';

const START_MS = 120_000;
/** sha256("fee_collector")[:20], the Cosmos fee collector module account. */
const FEE_COLLECTOR = '0xf1829676db577682e944fc3493d451b67ff3e29f';
const POWER = 10;

/** Every node's answer to the same eth_ call, asserted equal; returns it. */
async function agree(nodes: CometNode[], method: string, params: unknown[]): Promise<any> {
  const answers = await Promise.all(nodes.map((n) => rpcResult(n.eth, method, params)));
  for (const [i, a] of answers.entries()) {
    assert.deepEqual(
      a,
      answers[0],
      `${method}(${JSON.stringify(params)}) on ${nodes[i]!.name} differs from ${nodes[0]!.name}`,
    );
  }
  return answers[0];
}

/** CometBFT block id hash and app hash at height h. */
async function cometBlock(n: CometNode, h: number): Promise<{ hash: string; appHash: string }> {
  const b = await cometRpc(n.rpc, 'block', { height: String(h) });
  return { hash: b.block_id.hash, appHash: b.block.header.app_hash };
}

/** Waits until `n` is no longer catching up and has reached `h`. */
async function waitSynced(n: CometNode, h: number, timeoutMs: number): Promise<void> {
  await waitFor(
    `${n.name} synced to ${h}`,
    async () => {
      try {
        const s = await cometRpc(n.rpc, 'status');
        return !s.sync_info.catching_up && Number(s.sync_info.latest_block_height) >= h ? true : undefined;
      } catch {
        return undefined;
      }
    },
    timeoutMs,
  );
}

describe('four validators behind CometBFT', { skip: cometbftMissing(), timeout: 420_000 }, () => {
  let net: CometNet | undefined;
  const nodes = () => net!.nodes;

  before(async () => {
    net = CometNet.create({ validators: 4, basePort: await freePortBlock(4), args: ['--power', String(POWER)] });
    try {
      await net.startAll();
      await Promise.all(nodes().map((n) => n.waitHeight(2, START_MS)));
    } catch (e) {
      net.printLogs('startup failed');
      throw e;
    }
  });
  afterEach((t) => {
    if ((t as { passed?: boolean }).passed === false) net?.printLogs(`failed: ${(t as { name?: string }).name}`);
  });
  after(async () => {
    await net?.dispose();
  });

  it('every validator makes the same blocks, and `validators` shows each one with its power', async () => {
    const [n0] = nodes();
    const h = await n0!.waitHeight(3, 60_000);
    await Promise.all(nodes().map((n) => n.waitHeight(h, 60_000)));
    for (let height = 1; height <= h; height++) {
      const blocks = await Promise.all(nodes().map((n) => cometBlock(n, height)));
      for (const b of blocks) assert.deepEqual(b, blocks[0], `block ${height}`);
    }
    const v = await cometRpc(n0!.rpc, 'validators', { height: String(h) });
    assert.equal(v.total, '4');
    assert.deepEqual(
      v.validators.map((x: { voting_power: string }) => x.voting_power),
      Array(4).fill(String(POWER)),
    );
    const genesis = (await cometRpc(n0!.rpc, 'genesis')).genesis;
    assert.deepEqual(
      v.validators.map((x: { address: string }) => x.address).sort(),
      genesis.validators.map((x: { address: string }) => x.address).sort(),
    );
  });

  it('a transfer sent to validator 1 is mined with the same block hash, state root and receipt on validators 2-4', async () => {
    const [n0, ...others] = nodes();
    const [from, to] = [DEV_ACCOUNTS[1]!, DEV_ACCOUNTS[2]!];
    const tx = await signTx(n0!.eth, from.privateKey, { to: to.address, value: 12_345n });
    assert.equal(await rpcResult(n0!.eth, 'eth_sendRawTransaction', [tx.raw]), tx.hash);
    const receipt = await waitForReceipt(n0!.eth, tx.hash, 60_000);
    assert.equal(receipt.status, '0x1');
    const block = await rpcResult(n0!.eth, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
    assert.equal(block.hash, receipt.blockHash);
    assert.ok(block.transactions.includes(tx.hash));
    for (const n of others) {
      const r = await waitForReceipt(n.eth, tx.hash, 60_000);
      assert.deepEqual(r, receipt, `receipt on ${n.name}`);
      const b = await rpcResult(n.eth, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
      assert.equal(b.hash, block.hash, `block hash on ${n.name}`);
      assert.equal(b.stateRoot, block.stateRoot, `state root on ${n.name}`);
    }
    // The block's miner is the proposer's operator (genesis app_state.fee_recipients), not its consensus address.
    const proposer = (await cometRpc(n0!.rpc, 'block', { height: String(Number(receipt.blockNumber)) })).block.header
      .proposer_address;
    const recipients = (await cometRpc(n0!.rpc, 'genesis')).genesis.app_state.fee_recipients as Array<{
      validator: string;
      recipient: string;
    }>;
    assert.equal(recipients.length, 4);
    const operator = recipients.find((r) => r.validator === proposer)!.recipient;
    assert.equal(block.miner, operator);
    // A staking network distributes the fees: the block's fees wait in the fee collector (a Cosmos module account)
    // until the next block hands them to the distribution module.
    const held = BigInt(await rpcResult(n0!.eth, 'eth_getBalance', [FEE_COLLECTOR, receipt.blockNumber]));
    assert.equal(held, BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
  });

  it('eth_ queries agree across all four validators', async () => {
    const n0 = nodes()[0]!;
    const [from, to] = [DEV_ACCOUNTS[3]!, DEV_ACCOUNTS[4]!];
    // A transaction sent to validator 4 this time, so the mined block has something to agree on.
    const tx = await signTx(nodes()[3]!.eth, from.privateKey, { to: to.address, value: 7n });
    await rpcResult(nodes()[3]!.eth, 'eth_sendRawTransaction', [tx.raw]);
    const receipt = await waitForReceipt(n0.eth, tx.hash, 60_000);
    const num = receipt.blockNumber as string;
    await Promise.all(nodes().map((n) => waitForReceipt(n.eth, tx.hash, 60_000)));
    await agree(nodes(), 'eth_chainId', []);
    await agree(nodes(), 'eth_getBlockByNumber', [num, true]);
    await agree(nodes(), 'eth_getBlockByHash', [receipt.blockHash, false]);
    await agree(nodes(), 'eth_getBlockTransactionCountByNumber', [num]);
    await agree(nodes(), 'eth_getTransactionByHash', [tx.hash]);
    await agree(nodes(), 'eth_getTransactionReceipt', [tx.hash]);
    for (const a of [from, to, DEV_ACCOUNTS[9]!]) {
      await agree(nodes(), 'eth_getBalance', [a.address, num]);
      await agree(nodes(), 'eth_getTransactionCount', [a.address, num]);
    }
    await agree(nodes(), 'eth_getLogs', [{ fromBlock: '0x1', toBlock: num }]);
    const prev = '0x' + (BigInt(num) - 1n).toString(16);
    await agree(nodes(), 'eth_getBalance', [to.address, prev]);
  });

  it('each validator serves Prometheus metrics: head, ABCI call durations, commit time (kestreld testnet turns them on)', async () => {
    const n0 = nodes()[0]!;
    const res = await fetch(`http://127.0.0.1:${n0.spec.ports.metrics}/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    if (process.env.KESTREL_PRINT_METRICS) process.stderr.write(text);
    const head = Number(/^kestrel_chain_head_height (\d+)$/m.exec(text)?.[1]);
    assert.ok(head >= 3, 'head height');
    for (const m of ['finalize_block', 'commit', 'prepare_proposal', 'process_proposal', 'check_tx', 'info']) {
      const count = Number(
        new RegExp(`^kestrel_abci_request_duration_seconds_count\\{method="${m}"\\} (\\d+)$`, 'm').exec(text)?.[1],
      );
      assert.ok(count >= 1, `ABCI ${m} timed`);
    }
    assert.match(text, /^kestrel_chain_commit_duration_seconds_count \d+$/m);
    assert.match(text, /^kestrel_db_size_bytes \d+$/m);
  });

  it('miner_setEtherbase says it has no effect: the coinbase comes from genesis', async () => {
    const n0 = nodes()[0]!;
    const token = readFileSync(join(net!.dir, n0.spec.appHome, 'config', 'auth.token'), 'utf8').trim();
    const res = await fetch(n0.eth, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'miner_setEtherbase', params: [DEV_ACCOUNTS[5]!.address] }),
    });
    const body = (await res.json()) as { error?: { code: number; message: string } };
    assert.equal(body.error?.code, -32004);
    assert.match(body.error!.message, /no effect under --consensus cometbft.*fee_recipients/);
  });

  // The outage scenario runs as one sequence: each step depends on the validators the previous one left running.
  let killedAt = 0;
  let haltedAt = 0;

  it('kill -9 of one validator (app and CometBFT): the other three keep making blocks', async () => {
    const [n0, , , n3] = nodes();
    killedAt = (await n0!.height())!;
    await n3!.kill();
    await n0!.waitHeight(killedAt + 5, 90_000);
  });

  it('kill -9 of a second validator: blocks stop (two of four is not more than two thirds)', async () => {
    const [n0, n1, n2] = nodes();
    await n2!.kill();
    await sleep(2_000); // a block already precommitted by three validators may still commit
    haltedAt = Math.max((await n0!.height())!, (await n1!.height())!);
    await sleep(5_000);
    assert.equal(await n0!.height(), haltedAt, 'validator 1 made no block');
    assert.equal(await n1!.height(), haltedAt, 'validator 2 made no block');
  });

  it('restarting one of them: blocks resume', async () => {
    const [n0, , n2] = nodes();
    await n2!.start();
    await n0!.waitHeight(haltedAt + 3, 180_000);
  });

  it('restarting the first: it replays, catches up and holds identical blocks', async () => {
    const [n0, , , n3] = nodes();
    await n3!.start();
    const target = (await n0!.height())!;
    // eth_syncing while it catches up: geth's progress object (when the poll catches it), false once caught up.
    const seen: Array<{ startingBlock: string; currentBlock: string; highestBlock: string }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const r = await rpcResult(n3!.eth, 'eth_syncing', []).catch(() => undefined);
        if (r) seen.push(r);
        await sleep(50);
      }
    })();
    await waitSynced(n3!, target, 180_000);
    polling = false;
    await poller;
    for (const p of seen) {
      assert.ok(
        BigInt(p.startingBlock) <= BigInt(p.currentBlock) && BigInt(p.currentBlock) <= BigInt(p.highestBlock),
        JSON.stringify(p),
      );
      assert.ok(
        BigInt(p.startingBlock) >= BigInt(killedAt - 1) && BigInt(p.highestBlock) <= BigInt(target + 20),
        JSON.stringify(p),
      );
    }
    await waitFor(
      'eth_syncing false',
      async () => ((await rpcResult(n3!.eth, 'eth_syncing', [])) === false ? true : undefined),
      10_000,
    );
    // Heights it missed (killed → halted → resumed) and the ones before: same CometBFT block and app hash.
    for (let h = Math.max(1, killedAt - 2); h <= target; h++) {
      assert.deepEqual(await cometBlock(n3!, h), await cometBlock(n0!, h), `block ${h}`);
    }
    for (const h of [killedAt + 1, haltedAt, target]) {
      const q = ['0x' + h.toString(16), false];
      const [a, b] = await Promise.all([
        rpcResult(n3!.eth, 'eth_getBlockByNumber', q),
        rpcResult(n0!.eth, 'eth_getBlockByNumber', q),
      ]);
      assert.ok(a, `eth block ${h} on ${n3!.name}`);
      assert.equal(a.hash, b.hash, `eth block hash ${h}`);
      assert.equal(a.stateRoot, b.stateRoot, `state root ${h}`);
    }
  });

  it('kill -9 of an app alone stops its CometBFT; restarted together, the handshake replays and the node rejoins', async () => {
    const [n0, n1] = nodes();
    await n1!.killApp();
    await n1!.cometStopsAfterApp(10_000);
    await n1!.start();
    const target = (await n0!.height())! + 2;
    await waitSynced(n1!, target, 120_000);
    // The rejoined node can store a decided block before the node compared with it does (seen once in CI).
    await waitSynced(n0!, target, 30_000);
    assert.deepEqual(await cometBlock(n1!, target), await cometBlock(n0!, target));
  });

  it('the supervisor (kestreld testnet start|stop) restarts a pair whose app died, and stops everything by pid', async () => {
    await Promise.all(nodes().map((n) => n.kill()));
    const dir = net!.dir;
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/kestreld.js', 'testnet', ...args], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 200_000,
      });
    const started = cli('start', dir, '--wait', '180');
    try {
      assert.equal(started.status, 0, started.stderr + started.stdout);
      const victim = nodes()[2]!;
      const f = nodeFiles(dir, victim.spec);
      const oldApp = readPid(f.appPid)!;
      const oldComet = readPid(f.cometPid)!;
      assert.ok(isAlive(oldApp) && isAlive(oldComet));
      process.kill(oldApp, 'SIGKILL');
      const newApp = await waitFor(
        'a restarted app',
        async () => {
          const p = readPid(f.appPid);
          const c = readPid(f.cometPid);
          return p !== undefined && p !== oldApp && c !== undefined && c !== oldComet ? p : undefined;
        },
        60_000,
      );
      assert.ok(!isAlive(oldComet), 'the old CometBFT of the pair is gone');
      const target = (await nodes()[0]!.height())! + 2;
      await waitSynced(victim, target, 120_000);
      const pids = nodes().flatMap((n) => [
        readPid(nodeFiles(dir, n.spec).appPid)!,
        readPid(nodeFiles(dir, n.spec).cometPid)!,
      ]);
      assert.ok(pids.includes(newApp));
      const stopped = cli('stop', dir);
      assert.equal(stopped.status, 0, stopped.stderr);
      for (const pid of pids) assert.ok(!isAlive(pid), `pid ${pid} stopped`);
      for (const n of nodes())
        assert.ok(!existsSync(nodeFiles(dir, n.spec).appPid) && !existsSync(nodeFiles(dir, n.spec).cometPid));
    } finally {
      cli('stop', dir); // no-op after a clean stop; kills by pid file otherwise
    }
  });
});
