// Polling filters against a real kestreld (SPEC §3.2): block, log and pending-transaction filters through viem's
// filter actions and raw JSON-RPC; only what happened since the previous poll; eth_getFilterLogs; uninstall;
// unknown ids; pending filters seeing txs when they enter the pool (before they are mined); idle expiry and
// filter-cap (both configurable).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { id } from 'ethers';
import { createPublicClient, http, parseAbiItem, type PublicClient } from 'viem';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { deployEmitter, emitManyData, pongData } from '../helpers/emitter.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, sleep, startNode, waitFor } from '../helpers/node.ts';
import { sendTx, signTx } from '../helpers/tx.ts';

const PING = id('Ping(uint256,address,bytes)');
const PONG = id('Pong(uint256)');
const alice = DEV_ACCOUNTS[4]!;
const bob = DEV_ACCOUNTS[5]!;

describe('polling filters', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let client: PublicClient;
  let emitter: `0x${string}`;
  before(async () => {
    node = await startNode();
    client = createPublicClient({ transport: http(node.http, { retryCount: 0 }) });
    emitter = (await deployEmitter(node.http, alice.privateKey)) as `0x${string}`;
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('a block filter reports each new block hash once', async () => {
    const filter = await client.createBlockFilter();
    assert.deepEqual(await client.getFilterChanges({ filter }), []);
    const r1 = (await sendTx(node.http, alice.privateKey, { to: bob.address, value: 1n })).receipt;
    const r2 = (await sendTx(node.http, alice.privateKey, { to: bob.address, value: 1n })).receipt;
    assert.deepEqual(await client.getFilterChanges({ filter }), [r1.blockHash, r2.blockHash]);
    assert.deepEqual(await client.getFilterChanges({ filter }), []);
    assert.equal(await client.uninstallFilter({ filter }), true);
  });

  it('a log filter reports new matching logs since the last poll; eth_getFilterLogs re-runs the query', async () => {
    const old = await sendTx(node.http, alice.privateKey, { to: emitter, data: pongData(1), gas: 100_000n });
    const filter = await client.createEventFilter({
      address: emitter,
      event: parseAbiItem('event Pong(uint256 indexed i)'),
      args: { i: 2n },
      fromBlock: 0n,
    });
    assert.deepEqual(await client.getFilterChanges({ filter }), [], 'no back-fill of old logs');
    await sendTx(node.http, alice.privateKey, { to: emitter, data: pongData(3), gas: 100_000n });
    const hit = await sendTx(node.http, alice.privateKey, { to: emitter, data: pongData(2), gas: 100_000n });
    const changes = await client.getFilterChanges({ filter });
    assert.equal(changes.length, 1);
    assert.equal(changes[0]!.transactionHash, hit.hash);
    assert.equal(changes[0]!.args.i, 2n);
    assert.deepEqual(await client.getFilterChanges({ filter }), []);
    const all = await rpcResult<any[]>(node.http, 'eth_getFilterLogs', [filter.id]);
    assert.deepEqual(
      all.map((l) => l.transactionHash),
      [hit.hash],
    );
    const allPongs = await rpcResult<any[]>(node.http, 'eth_newFilter', [{ fromBlock: '0x0', topics: [PONG] }]);
    const logs = await rpcResult<any[]>(node.http, 'eth_getFilterLogs', [allPongs]);
    assert.deepEqual(logs.map((l) => l.transactionHash).slice(-3), [old.hash, logs.at(-2).transactionHash, hit.hash]);
  });

  it('concurrent filters each see exactly their own logs', async () => {
    const crits = [
      { topics: [PING] },
      { topics: [PONG] },
      { address: emitter },
      { topics: [null, '0x' + '00'.repeat(31) + '01'] },
      { address: bob.address },
    ];
    const ids = await Promise.all(crits.map((c) => rpcResult<string>(node.http, 'eth_newFilter', [c])));
    assert.equal(new Set(ids).size, ids.length);
    const a = await signTx(node.http, alice.privateKey, { to: emitter, data: emitManyData(2), gas: 200_000n });
    const b = await signTx(node.http, bob.privateKey, { to: emitter, data: pongData(1), gas: 100_000n });
    await Promise.all([a, b].map((t) => rpcResult(node.http, 'eth_sendRawTransaction', [t.raw])));
    for (const h of [a.hash, b.hash])
      await waitFor('receipt', () => rpcResult(node.http, 'eth_getTransactionReceipt', [h]));
    const got = await Promise.all(ids.map((i) => rpcResult<any[]>(node.http, 'eth_getFilterChanges', [i])));
    assert.deepEqual(
      got.map((g) => g.length),
      [2, 1, 3, 2, 0],
    );
    assert.deepEqual(got[3]!.map((l) => l.topics[0]).sort(), [PING, PONG].sort());
    for (const i of ids) assert.equal(await rpcResult(node.http, 'eth_uninstallFilter', [i]), true);
  });

  it('uninstall answers true then false; unknown ids and wrong filter types are errors', async () => {
    const blocks = await rpcResult<string>(node.http, 'eth_newBlockFilter');
    assert.match(blocks, /^0x[0-9a-f]{1,32}$/);
    const pending = await rpcResult<string>(node.http, 'eth_newPendingTransactionFilter');
    assert.deepEqual((await rpc(node.http, 'eth_getFilterLogs', [blocks])).error, {
      code: -32000,
      message: `filter ${blocks} doesn't have a LogsSubscription type: got 5`,
    });
    assert.deepEqual((await rpc(node.http, 'eth_getFilterLogs', [pending])).error, {
      code: -32000,
      message: `filter ${pending} doesn't have a LogsSubscription type: got 4`,
    });
    assert.equal(await rpcResult(node.http, 'eth_uninstallFilter', [blocks]), true);
    assert.equal(await rpcResult(node.http, 'eth_uninstallFilter', [blocks]), false);
    for (const m of ['eth_getFilterChanges', 'eth_getFilterLogs']) {
      assert.deepEqual((await rpc(node.http, m, [blocks])).error, { code: -32000, message: 'filter not found' }, m);
      assert.deepEqual((await rpc(node.http, m, ['0x1234'])).error, { code: -32000, message: 'filter not found' }, m);
      assert.equal((await rpc(node.http, m, [1234])).error?.code, -32602, m);
    }
    assert.equal(await rpcResult(node.http, 'eth_uninstallFilter', ['0xdeadbeef']), false);
    assert.deepEqual((await rpc(node.http, 'eth_newFilter', [{ fromBlock: '0x5', toBlock: '0x2' }])).error, {
      code: -32602,
      message: 'invalid block range params',
    });
    assert.deepEqual((await rpc(node.http, 'eth_newFilter', [{ topics: [1] }])).error, {
      code: -32602,
      message: 'invalid argument 0: invalid topic(s)',
    });
  });

  it('a log filter with a numeric toBlock in the past reports nothing new', async () => {
    const f = await rpcResult<string>(node.http, 'eth_newFilter', [
      { fromBlock: '0x0', toBlock: '0x1', topics: [PONG] },
    ]);
    await sendTx(node.http, alice.privateKey, { to: emitter, data: pongData(9), gas: 100_000n });
    assert.deepEqual(await rpcResult(node.http, 'eth_getFilterChanges', [f]), []);
  });
});

describe('pending filters, expiry and filter-cap', { timeout: 90_000 }, () => {
  let node: KestrelNode;
  before(async () => {
    node = await startNode({
      args: ['--block-time', '3s', '--json-rpc.filter-timeout', '2s', '--json-rpc.filter-cap', '4'],
    });
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  /** Waits for the next block, so the following ~3 s are free of sealing. */
  async function justAfterABlock(): Promise<void> {
    const n = await rpcResult<string>(node.http, 'eth_blockNumber');
    await waitFor(
      'next block',
      async () => ((await rpcResult<string>(node.http, 'eth_blockNumber')) !== n ? true : undefined),
      10_000,
    );
  }

  it('reports a tx when it enters the pool, before it is mined (hashes and full txs)', async () => {
    await justAfterABlock();
    const hashes = await rpcResult<string>(node.http, 'eth_newPendingTransactionFilter');
    const full = await rpcResult<string>(node.http, 'eth_newPendingTransactionFilter', [true]);
    const t = await signTx(node.http, alice.privateKey, { to: bob.address, value: 7n });
    assert.equal(await rpcResult(node.http, 'eth_sendRawTransaction', [t.raw]), t.hash);
    assert.deepEqual(await rpcResult(node.http, 'eth_getFilterChanges', [hashes]), [t.hash]);
    assert.equal(await rpcResult(node.http, 'eth_getTransactionReceipt', [t.hash]), null, 'not mined yet');
    const txs = await rpcResult<any[]>(node.http, 'eth_getFilterChanges', [full]);
    assert.equal(txs.length, 1);
    assert.equal(txs[0].hash, t.hash);
    assert.equal(txs[0].blockHash, null);
    assert.equal(txs[0].from.toLowerCase(), alice.address.toLowerCase());
    assert.deepEqual(await rpcResult(node.http, 'eth_getFilterChanges', [hashes]), []);
    for (const f of [hashes, full]) await rpcResult(node.http, 'eth_uninstallFilter', [f]);
  });

  it('removes a filter that is not polled within filter-timeout, keeps one that is', async () => {
    const idle = await rpcResult<string>(node.http, 'eth_newBlockFilter');
    const busy = await rpcResult<string>(node.http, 'eth_newBlockFilter');
    for (let i = 0; i < 4; i++) {
      await sleep(800);
      await rpcResult(node.http, 'eth_getFilterChanges', [busy]);
    }
    assert.deepEqual((await rpc(node.http, 'eth_getFilterChanges', [idle])).error, {
      code: -32000,
      message: 'filter not found',
    });
    assert.equal(await rpcResult(node.http, 'eth_uninstallFilter', [idle]), false);
    assert.equal(await rpcResult(node.http, 'eth_uninstallFilter', [busy]), true);
  });

  it('refuses filters beyond filter-cap until one is removed', async () => {
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await rpcResult<string>(node.http, 'eth_newBlockFilter'));
    for (const m of ['eth_newBlockFilter', 'eth_newPendingTransactionFilter']) {
      assert.deepEqual((await rpc(node.http, m)).error, {
        code: -32005,
        message: 'error creating filter: max limit reached (filter-cap 4)',
      });
    }
    assert.equal((await rpc(node.http, 'eth_newFilter', [{}])).error?.code, -32005);
    await rpcResult(node.http, 'eth_uninstallFilter', [ids[0]]);
    ids[0] = await rpcResult<string>(node.http, 'eth_newFilter', [{}]);
    for (const i of ids) await rpcResult(node.http, 'eth_uninstallFilter', [i]);
  });
});
