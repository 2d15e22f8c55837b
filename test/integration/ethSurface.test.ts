// The modern eth_/debug_ surface (issue 18): optional block parameters, the raw debug encodings, fee and fork
// facts, eth_getStorageValues and eth_fillTransaction. Each case runs over HTTP and WS and its result is validated
// against execution-apis' OpenRPC schema, then checked for its values.
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface, Transaction, decodeRlp, encodeRlp, getBytes, keccak256 } from 'ethers';
import { nonCoinbaseAccounts, type DevAccount } from '../helpers/accounts.ts';
import { orderedTrieRoot } from '../helpers/chain.ts';
import { assertConforms } from '../helpers/openrpc.ts';
import { readFileSync } from 'node:fs';
import { type KestrelNode, type RpcResponse, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { testContracts } from '../helpers/solc.ts';
import { sendTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

interface Ctx {
  sender: DevAccount;
  other: DevAccount;
  contract: string;
  setHash: string;
  legacyHash: string;
  setBlock: any;
  genesis: any;
  url: string;
}

interface Case {
  method: string;
  label?: string;
  params: (ctx: Ctx) => unknown[] | Promise<unknown[]>;
  check?: (result: any, ctx: Ctx, call: Call) => void | Promise<void>;
}

type Call = (method: string, params: unknown[]) => Promise<RpcResponse>;

const { Store } = testContracts();
const store = new Interface(Store.abi);
const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');

const cases: Case[] = [
  {
    method: 'eth_getBalance',
    label: 'block omitted = latest',
    params: (c) => [c.other.address],
    check: async (r, c, call) => assert.equal(r, (await call('eth_getBalance', [c.other.address, 'latest'])).result),
  },
  {
    method: 'eth_getTransactionCount',
    label: 'block omitted = latest',
    params: (c) => [c.sender.address],
    check: async (r, c, call) =>
      assert.equal(r, (await call('eth_getTransactionCount', [c.sender.address, 'latest'])).result),
  },
  {
    method: 'eth_getCode',
    label: 'block omitted = latest',
    params: (c) => [c.contract],
    check: (r) => assert.equal(r, Store.deployedBytecode),
  },
  {
    method: 'eth_getStorageAt',
    label: 'block omitted = latest',
    params: (c) => [c.contract, '0x1'],
    check: (r) => assert.equal(r, word(42n)),
  },
  {
    method: 'eth_getProof',
    label: 'block omitted = latest',
    params: (c) => [c.contract, ['0x1']],
    check: (r) => assert.equal(r.storageProof[0].value, '0x2a'),
  },
  { method: 'eth_getBlockTransactionCountByNumber', label: 'block omitted = latest', params: () => [] },
  {
    method: 'eth_getStorageValues',
    params: (c) => [{ [c.contract]: ['0x0', '0x1', '0x3'], [c.other.address]: ['0x1'] }, 'latest'],
    check: (r, c) => {
      assert.deepEqual(r[c.contract.toLowerCase()].slice(1), [word(42n), word(0n)]);
      assert.equal(BigInt(r[c.contract.toLowerCase()][0]), BigInt(c.sender.address), 'slot 0 = owner');
      assert.deepEqual(r[c.other.address.toLowerCase()], [word(0n)]);
    },
  },
  {
    method: 'eth_getStorageValues',
    label: 'at an earlier block, block omitted',
    params: (c) => [{ [c.contract]: ['0x1'] }],
    check: (r, c) => assert.deepEqual(r[c.contract.toLowerCase()], [word(42n)]),
  },
  {
    method: 'debug_getRawHeader',
    params: (c) => [c.setBlock.number],
    check: (r, c) => assert.equal(keccak256(r), c.setBlock.hash, 'the raw header hashes to the block hash'),
  },
  {
    method: 'debug_getRawHeader',
    label: 'genesis',
    params: () => ['0x0'],
    check: (r, c) => assert.equal(keccak256(r), c.genesis.hash),
  },
  {
    method: 'debug_getRawHeader',
    label: 'by {blockHash}',
    params: (c) => [{ blockHash: c.setBlock.hash }],
    check: (r, c) => assert.equal(keccak256(r), c.setBlock.hash),
  },
  {
    method: 'debug_getRawBlock',
    params: (c) => [c.setBlock.hash],
    check: async (r, c, call) => {
      const [header, txs, uncles, withdrawals] = decodeRlp(r) as any[];
      assert.equal(keccak256(encodeRlp(header)), c.setBlock.hash);
      assert.equal(txs.length, c.setBlock.transactions.length);
      assert.deepEqual(uncles, []);
      assert.deepEqual(withdrawals, []);
      const rawTx = (await call('debug_getRawTransaction', [c.setHash])).result as string;
      assert.equal(txs[0], rawTx, 'a typed tx sits in the body as its encoding');
    },
  },
  {
    method: 'debug_getRawReceipts',
    params: (c) => [c.setBlock.number],
    check: (r, c) => {
      assert.equal(r.length, c.setBlock.transactions.length);
      assert.equal(orderedTrieRoot(r.map((x: string) => getBytes(x))), c.setBlock.receiptsRoot, 'receipts trie root');
    },
  },
  {
    method: 'debug_getRawTransaction',
    params: (c) => [c.setHash],
    check: (r, c) => assert.equal(keccak256(r), c.setHash),
  },
  {
    method: 'debug_getRawTransaction',
    label: 'legacy',
    params: (c) => [c.legacyHash],
    check: (r, c) => {
      assert.equal(keccak256(r), c.legacyHash);
      assert.equal(Transaction.from(r).type, 0);
    },
  },
  { method: 'debug_getBadBlocks', params: () => [], check: (r) => assert.deepEqual(r, []) },
  {
    method: 'eth_baseFee',
    params: () => [],
    check: async (r, _c, call) => {
      const hist = (await call('eth_feeHistory', ['0x1', 'latest', []])).result as any;
      assert.equal(r, hist.baseFeePerGas[1], 'the next block base fee');
    },
  },
  { method: 'eth_blobBaseFee', params: () => [], check: (r) => assert.equal(r, '0x1') },
  {
    method: 'eth_config',
    params: () => [],
    check: (r, c) => {
      assert.equal(r.current.chainId, '0x2328');
      assert.equal(r.next, null);
      assert.equal(r.last, null);
      const sum = crc32(getBytes(c.genesis.hash));
      assert.equal(r.current.forkId, '0x' + sum.toString(16).padStart(8, '0'));
      assert.equal(r.current.precompiles.ECREC, '0x0000000000000000000000000000000000000001');
      // Osaka (the default fork of a new home): Prague's 17 and P256VERIFY, Prague's blob schedule.
      assert.equal(r.current.precompiles.P256VERIFY, '0x0000000000000000000000000000000000000100');
      assert.equal(Object.keys(r.current.precompiles).length, 18);
      assert.deepEqual(r.current.blobSchedule, { target: 6, max: 9, baseFeeUpdateFraction: 5007716 });
    },
  },
  {
    method: 'eth_capabilities',
    params: () => [],
    check: async (r, c) => {
      assert.equal(r.state.oldestBlock, '0x0');
      assert.ok(BigInt(r.head.number) >= BigInt(c.setBlock.number));
    },
  },
  {
    method: 'eth_fillTransaction',
    params: (c) => [{ from: c.sender.address, to: c.contract, data: store.encodeFunctionData('set', [9n]) }],
    check: async (r, c, call) => {
      const est = (
        await call('eth_estimateGas', [
          { from: c.sender.address, to: c.contract, data: store.encodeFunctionData('set', [9n]) },
        ])
      ).result;
      assert.equal(r.tx.gas, est, 'gas is estimated');
      assert.equal(r.tx.nonce, (await call('eth_getTransactionCount', [c.sender.address, 'pending'])).result);
      assert.equal(r.tx.type, '0x2');
      const tx = Transaction.from(r.raw);
      assert.equal(BigInt(tx.signature?.r ?? 0), 0n, 'unsigned: r = s = 0');
      assert.equal(tx.to?.toLowerCase(), c.contract.toLowerCase());
      assert.equal('0x' + tx.gasLimit.toString(16), est);
    },
  },
  {
    method: 'eth_fillTransaction',
    label: 'legacy with gas',
    params: (c) => [
      { from: c.sender.address, to: c.other.address, value: '0x5', gasPrice: '0x3b9aca00', gas: '0x5208' },
    ],
    check: (r) => {
      assert.equal(r.tx.type, '0x0');
      assert.equal(r.tx.gas, '0x5208');
      assert.equal(Transaction.from(r.raw).gasPrice, 1_000_000_000n);
    },
  },
];

describe('eth_/debug_ surface (issue 18)', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  const ctx = {} as Ctx;

  before(async () => {
    node = await startNode();
    ctx.url = node.http;
    const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
    [ctx.sender, ctx.other] = nonCoinbaseAccounts(coinbase) as [DevAccount, DevAccount];
    const pk = ctx.sender.privateKey;
    ctx.legacyHash = (await sendTx(node.http, pk, { to: ctx.other.address, value: 1n, type: 0 })).hash;
    const deploy = await sendTx(node.http, pk, {
      to: null,
      data: Store.bytecode + store.encodeDeploy([7n, 'surface']).slice(2),
      gas: 2_000_000n,
    });
    ctx.contract = deploy.receipt.contractAddress;
    const set = await sendTx(node.http, pk, {
      to: ctx.contract,
      data: store.encodeFunctionData('set', [42n]),
      gas: 200_000n,
    });
    ctx.setHash = set.hash;
    ctx.setBlock = await rpcResult(node.http, 'eth_getBlockByNumber', [set.receipt.blockNumber, false]);
    ctx.genesis = await rpcResult(node.http, 'eth_getBlockByNumber', ['0x0', false]);
  });

  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  for (const transport of ['http', 'ws'] as const) {
    describe(`over ${transport}`, () => {
      let ws: WsRpc | undefined;
      const call: Call = async (method, params) =>
        transport === 'http' ? rpc(node.http, method, params) : ws!.request(method, params);
      before(async () => {
        if (transport === 'ws') ws = await WsRpc.connect(node.ws);
      });
      after(async () => {
        await ws?.close();
      });

      for (const c of cases) {
        it(`${c.method}${c.label ? ` (${c.label})` : ''}`, async () => {
          const params = await c.params(ctx);
          const res = await call(c.method, params);
          assert.equal(res.error, undefined, `${c.method} → ${JSON.stringify(res.error)}`);
          assertConforms(c.method, res.result);
          await c.check?.(res.result, ctx, call);
        });
      }

      it('errors: unknown blocks, bad params, empty storage request', async () => {
        const far = '0x' + (10n ** 9n).toString(16);
        for (const m of ['debug_getRawHeader', 'debug_getRawBlock', 'debug_getRawReceipts']) {
          const res = await call(m, [far]);
          assert.equal(res.error?.code, -32000, `${m} of an unknown block`);
          assert.match(res.error!.message, /not found/);
        }
        const bad = await call('debug_getRawHeader', ['2']);
        assert.deepEqual(bad.error, { code: -32602, message: 'invalid argument 0: hex string without 0x prefix' });
        const noTx = await call('debug_getRawTransaction', ['0x' + '11'.repeat(32)]);
        assert.equal(noTx.result, null);
        const empty = await call('eth_getStorageValues', [{}, 'latest']);
        assert.deepEqual(empty.error, { code: -32602, message: 'empty request' });
        const many = await call('eth_getStorageValues', [
          { [ctx.contract]: Array.from({ length: 1025 }, (_, i) => '0x' + i.toString(16)) },
        ]);
        assert.equal(many.error?.code, -32602);
      });
    });
  }

  it('every eth_, debug_ and txpool_ method of the spec is served, but the three the README names', async () => {
    const doc = JSON.parse(readFileSync(new URL('../fixtures/openrpc.json', import.meta.url), 'utf8')) as {
      methods: Array<{ name: string }>;
    };
    const refused = new Set(['eth_getBlockAccessList', 'debug_getRawBlockAccessList', 'testing_buildBlockV1']);
    const spec = doc.methods.map((m) => m.name).filter((n) => /^(eth|debug|txpool)_/.test(n));
    assert.ok(spec.length > 40);
    for (const name of spec) {
      const res = await rpc(node.http, name, []);
      if (refused.has(name)) assert.equal(res.error?.code, -32601, `${name} is refused`);
      else assert.notEqual(res.error?.code, -32601, `${name} must be served: ${JSON.stringify(res.error)}`);
    }
  });

  it('eth_capabilities on a pruning node: state and proofs in a window, the rest from genesis', async () => {
    const pruned = await startNode({ args: ['--pruning', 'custom', '--pruning-keep-recent', '5'] });
    try {
      const r = await rpcResult<any>(pruned.http, 'eth_capabilities');
      assertConforms('eth_capabilities', r);
      assert.deepEqual(r.state.deleteStrategy, { type: 'window', retentionBlocks: '0x5' });
      assert.deepEqual(r.stateproofs, r.state);
      assert.deepEqual(r.blocks, { disabled: false, oldestBlock: '0x0' });
    } finally {
      await pruned.dispose();
    }
  });
});
