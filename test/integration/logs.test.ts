// eth_getLogs against a real kestreld: the full filter object (ranges, tags, address, positional topics with
// null wildcards and OR-arrays, EIP-234 blockHash/blockhash), logs equal to the receipts' logs, the index
// surviving a restart, app.toml caps, bad input, and viem/ethers as clients.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Contract, JsonRpcProvider, id, zeroPadValue } from 'ethers';
import { createPublicClient, http, parseAbiItem } from 'viem';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { deployEmitter, emitManyData, emitterContract, pongData } from '../helpers/emitter.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { sendTx, signTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const PING = id('Ping(uint256,address,bytes)');
const PONG = id('Pong(uint256)');
const word = (n: number) => zeroPadValue('0x' + n.toString(16).padStart(2, '0'), 32);
const alice = DEV_ACCOUNTS[1]!;
const bob = DEV_ACCOUNTS[2]!;
const aliceTopic = zeroPadValue(alice.address.toLowerCase(), 32);

let node: KestrelNode;
let emitter: string;
let emitter2: string;
/** Every log our txs produced, from their receipts, in chain order. */
let receiptLogs: any[] = [];

async function getLogs(filter: Record<string, unknown>): Promise<any[]> {
  return rpcResult<any[]>(node.http, 'eth_getLogs', [filter]);
}

async function logsError(filter: unknown): Promise<{ code: number; message: string }> {
  const r = await rpc(node.http, 'eth_getLogs', [filter]);
  assert.ok(r.error, `expected an error for ${JSON.stringify(filter)}, got ${JSON.stringify(r.result)}`);
  return r.error;
}

describe('eth_getLogs', { timeout: 120_000 }, () => {
  before(async () => {
    node = await startNode();
    emitter = await deployEmitter(node.http, alice.privateKey);
    emitter2 = await deployEmitter(node.http, bob.privateKey);
    const hashes: string[] = [];
    hashes.push(
      (await sendTx(node.http, alice.privateKey, { to: emitter, data: emitManyData(3, '0xabcd'), gas: 200_000n })).hash,
    );
    hashes.push((await sendTx(node.http, bob.privateKey, { to: emitter2, data: pongData(7), gas: 100_000n })).hash);
    // Two txs submitted together usually share a block; block-wide logIndex is then checked on a real case.
    const a = await signTx(node.http, alice.privateKey, { to: emitter, data: pongData(1), gas: 100_000n });
    const b = await signTx(node.http, bob.privateKey, { to: emitter2, data: emitManyData(2), gas: 200_000n });
    await Promise.all([a, b].map((t) => rpcResult(node.http, 'eth_sendRawTransaction', [t.raw])));
    hashes.push(a.hash, b.hash);
    const receipts = [];
    for (const h of hashes) {
      let r = null;
      while (!r) r = await rpcResult(node.http, 'eth_getTransactionReceipt', [h]);
      receipts.push(r);
    }
    receipts.sort(
      (x, y) =>
        Number(BigInt(x.blockNumber) - BigInt(y.blockNumber)) ||
        Number(BigInt(x.transactionIndex) - BigInt(y.transactionIndex)),
    );
    receiptLogs = receipts.flatMap((r) => r.logs);
    assert.equal(receiptLogs.length, 7);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('returns every log of a range exactly as the receipts carry it, blockTimestamp included', async () => {
    const logs = await getLogs({ fromBlock: '0x0', toBlock: 'latest' });
    assert.equal(logs.length, receiptLogs.length);
    for (let i = 0; i < logs.length; i++) {
      assert.deepEqual(logs[i], receiptLogs[i], `log ${i}`);
      const block = await rpcResult(node.http, 'eth_getBlockByNumber', [logs[i].blockNumber, false]);
      assert.equal(logs[i].blockTimestamp, block.timestamp);
      assert.equal(logs[i].removed, false);
    }
  });

  it('filters by address (one or many)', async () => {
    assert.deepEqual(
      (await getLogs({ fromBlock: 'earliest', address: emitter })).map((l) => l.address),
      Array(4).fill(emitter.toLowerCase()),
    );
    assert.equal((await getLogs({ fromBlock: '0x0', address: [emitter, emitter2] })).length, 7);
    assert.equal((await getLogs({ fromBlock: '0x0', address: emitter2.toUpperCase().replace('0X', '0x') })).length, 3);
    assert.deepEqual(await getLogs({ fromBlock: '0x0', address: '0x' + '11'.repeat(20) }), []);
  });

  it('filters by positional topics with null wildcards and OR-arrays', async () => {
    assert.equal((await getLogs({ fromBlock: '0x0', topics: [PING] })).length, 5);
    assert.equal((await getLogs({ fromBlock: '0x0', topics: [[PING, PONG]] })).length, 7);
    assert.equal(
      (await getLogs({ fromBlock: '0x0', topics: [[PONG, null]] })).length,
      7,
      'a null alternative is a wildcard',
    );
    assert.equal(
      (await getLogs({ fromBlock: '0x0', topics: [[]] })).length,
      7,
      'an empty alternative list is a wildcard',
    );
    const second = await getLogs({ fromBlock: '0x0', topics: [null, word(1)] });
    assert.deepEqual(second.map((l) => l.topics[0]).sort(), [PING, PING, PONG].sort());
    assert.equal((await getLogs({ fromBlock: '0x0', topics: [PING, null, aliceTopic] })).length, 3);
    assert.equal((await getLogs({ fromBlock: '0x0', topics: [PING, [word(0), word(2)], aliceTopic] })).length, 2);
    // A constraint on a position the log does not have excludes it, even a wildcard one (geth).
    assert.equal((await getLogs({ fromBlock: '0x0', topics: [PONG, null, null] })).length, 0);
    assert.equal((await getLogs({ fromBlock: '0x0', address: emitter2, topics: [PONG, []] })).length, 1);
  });

  it('takes one block by blockHash or blockhash (EIP-234) and answers [] for a block without logs', async () => {
    const blockHash = receiptLogs[0].blockHash;
    const expected = receiptLogs.filter((l) => l.blockHash === blockHash);
    assert.deepEqual(
      (await getLogs({ blockHash })).map((l) => l.logIndex),
      expected.map((l) => l.logIndex),
    );
    assert.deepEqual((await getLogs({ blockhash: blockHash, topics: [PING] })).length, expected.length);
    const genesis = await rpcResult(node.http, 'eth_getBlockByNumber', ['0x0', false]);
    assert.deepEqual(await getLogs({ blockHash: genesis.hash }), []);
    const err = await logsError({ blockHash: '0x' + '12'.repeat(32) });
    assert.deepEqual(err, { code: -32000, message: 'unknown block' });
  });

  it('defaults to the latest block and resolves tags', async () => {
    const head = await rpcResult(node.http, 'eth_getBlockByNumber', ['latest', false]);
    const inHead = receiptLogs.filter((l) => l.blockHash === head.hash);
    assert.deepEqual((await getLogs({})).length, inHead.length);
    assert.deepEqual((await getLogs({ fromBlock: 'pending', toBlock: 'pending' })).length, inHead.length);
    assert.deepEqual((await getLogs({ fromBlock: 'finalized', toBlock: 'safe' })).length, inHead.length);
    assert.deepEqual(await getLogs({ fromBlock: 'earliest', toBlock: 'earliest' }), []);
  });

  it('rejects bad input with geth-style invalid-params errors', async () => {
    const cases: Array<[unknown, string]> = [
      [{ fromBlock: '0x3', toBlock: '0x2' }, 'invalid block range params'],
      [{ toBlock: '0xffff' }, 'block range extends beyond current head block'],
      [
        { blockHash: '0x' + '00'.repeat(32), fromBlock: '0x1' },
        'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
      ],
      [
        { address: '0x' + '11'.repeat(19) },
        'invalid argument 0: invalid address: hex has invalid length 19 after decoding; expected 20 for address',
      ],
      [
        { address: [emitter, '0x1234'] },
        'invalid argument 0: invalid address at index 1: hex has invalid length 2 after decoding; expected 20 for address',
      ],
      [{ address: 5 }, 'invalid argument 0: invalid addresses in query'],
      [{ topics: [5] }, 'invalid argument 0: invalid topic(s)'],
      [{ topics: [[PING, 5]] }, 'invalid argument 0: invalid topic(s)'],
      [{ topics: ['0x1234'] }, 'invalid argument 0: hex has invalid length 2 after decoding; expected 32 for topic'],
      [{ topics: ['zz'] }, 'invalid argument 0: hex string without 0x prefix'],
      [{ topics: [null, null, null, null, null] }, 'invalid argument 0: exceed max topics'],
      [{ fromBlock: 'newest' }, 'invalid argument 0: hex string without 0x prefix'],
      ['latest', 'invalid argument 0: json: cannot unmarshal string into Go value of type filters.FilterCriteria'],
    ];
    for (const [filter, message] of cases) {
      assert.deepEqual(await logsError(filter), { code: -32602, message }, JSON.stringify(filter));
    }
    const missing = await rpc(node.http, 'eth_getLogs', []);
    assert.equal(missing.error?.code, -32602);
  });

  it('answers the same over WebSocket', async () => {
    const ws = await WsRpc.connect(node.ws);
    try {
      assert.deepEqual(await ws.result('eth_getLogs', [{ fromBlock: '0x0' }]), await getLogs({ fromBlock: '0x0' }));
    } finally {
      await ws.close();
    }
  });

  it('serves viem getLogs and ethers queryFilter', async () => {
    const client = createPublicClient({ transport: http(node.http, { retryCount: 0 }) });
    const pings = await client.getLogs({
      address: emitter as `0x${string}`,
      event: parseAbiItem('event Ping(uint256 indexed i, address indexed from, bytes data)'),
      args: { from: alice.address },
      fromBlock: 0n,
    });
    assert.deepEqual(
      pings.map((l) => l.args.i),
      [0n, 1n, 2n],
    );
    assert.equal(pings[0]!.args.data, '0xabcd');
    const provider = new JsonRpcProvider(node.http, undefined, { staticNetwork: true });
    try {
      const c = new Contract(emitter2, emitterContract().abi, provider);
      const pongs = await c.queryFilter(c.filters.Pong!(7), 0, 'latest');
      assert.equal(pongs.length, 1);
      assert.equal((pongs[0] as any).args.i, 7n);
    } finally {
      provider.destroy();
    }
  });

  it('keeps the index across a restart (written in the block batch)', async () => {
    const before = await getLogs({ fromBlock: '0x0', topics: [PING] });
    node = await node.restart();
    assert.deepEqual(await getLogs({ fromBlock: '0x0', topics: [PING] }), before);
    await sendTx(node.http, alice.privateKey, { to: emitter, data: emitManyData(1), gas: 200_000n });
    assert.equal((await getLogs({ fromBlock: '0x0', topics: [PING] })).length, before.length + 1);
  });
});

describe('eth_getLogs limits', { timeout: 60_000 }, () => {
  let capped: KestrelNode;
  before(async () => {
    capped = await startNode({ args: ['--json-rpc.block-range-cap', '3', '--json-rpc.logs-cap', '4'] });
  });
  afterEach(printLogsOnFailure(() => capped));
  after(async () => {
    await capped?.dispose();
  });

  it('refuses ranges over block-range-cap and results over logs-cap with clear errors', async () => {
    const e = await deployEmitter(capped.http, alice.privateKey);
    await sendTx(capped.http, alice.privateKey, { to: e, data: emitManyData(4), gas: 300_000n });
    const ok = await rpcResult<any[]>(capped.http, 'eth_getLogs', [{ address: e }]);
    assert.equal(ok.length, 4, 'exactly logs-cap logs is fine');
    await sendTx(capped.http, alice.privateKey, { to: e, data: emitManyData(1), gas: 300_000n });
    const head = BigInt(await rpcResult<string>(capped.http, 'eth_blockNumber'));
    const tooMany = await rpc(capped.http, 'eth_getLogs', [{ fromBlock: '0x' + (head - 1n).toString(16), address: e }]);
    assert.deepEqual(tooMany.error, { code: -32005, message: 'query returned more than 4 results' });
    const tooWide = await rpc(capped.http, 'eth_getLogs', [{ fromBlock: '0x' + (head - 3n).toString(16) }]);
    assert.deepEqual(tooWide.error, { code: -32005, message: 'exceed maximum block range: 3' });
    const justRight = await rpc(capped.http, 'eth_getLogs', [
      { fromBlock: '0x' + (head - 2n).toString(16), topics: [PONG] },
    ]);
    assert.deepEqual(justRight.result, []);
  });
});
