// Every eth_ (and net_/web3_) method the node serves, called with valid params over HTTP and over WS, with each
// result validated against its result schema from execution-apis' OpenRPC document (test/fixtures/openrpc.json).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface, Wallet, keccak256, toUtf8Bytes } from 'ethers';
import { DEV_BALANCE, nonCoinbaseAccounts, type DevAccount } from '../helpers/accounts.ts';
import { assertConforms } from '../helpers/openrpc.ts';
import {
  type KestrelNode,
  type RpcResponse,
  printLogsOnFailure,
  rpc,
  rpcResult,
  startNode,
  waitFor,
  waitForReceipt,
} from '../helpers/node.ts';
import { testContracts } from '../helpers/solc.ts';
import { sendTx, signTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const RANDOM_HASH = keccak256(toUtf8Bytes('no such thing in kestrel'));
const NOPE_REVERT_DATA =
  '0x08c379a0' +
  '0000000000000000000000000000000000000000000000000000000000000020' +
  '0000000000000000000000000000000000000000000000000000000000000004' +
  '6e6f706500000000000000000000000000000000000000000000000000000000';

interface Ctx {
  sender: DevAccount;
  other: DevAccount;
  contract: string;
  transferHash: string; // EIP-1559 transfer
  legacyHash: string; // legacy transfer
  deployHash: string; // contract creation
  setHash: string; // tx with a log
  revertHash: string; // mined revert
  setBlock: any; // block (hashes) containing setHash
  head: number; // head after the setup txs
  rpcUrl: string; // HTTP url (for helpers that sign or wait)
}

interface Case {
  method: string;
  params: (ctx: Ctx) => unknown[] | Promise<unknown[]>;
  /** Extra value checks beyond the schema. */
  check?: (result: any, ctx: Ctx) => void | Promise<void>;
  /** Label when the same method appears more than once. */
  label?: string;
}

const { Store } = testContracts();
const storeIface = new Interface(Store.abi);

const cases: Case[] = [
  { method: 'eth_protocolVersion', params: () => [] },
  { method: 'eth_syncing', params: () => [], check: (r) => assert.equal(r, false) },
  { method: 'eth_chainId', params: () => [], check: (r) => assert.equal(r, '0x2328') },
  { method: 'eth_gasPrice', params: () => [], check: (r) => assert.ok(BigInt(r) > 0n) },
  { method: 'eth_maxPriorityFeePerGas', params: () => [] },
  {
    method: 'eth_feeHistory',
    params: () => ['0x4', 'latest', [25, 75]],
    check: async (r, ctx) => {
      assert.equal(r.baseFeePerGas.length, 5, 'blockCount + 1 base fees');
      assert.equal(r.gasUsedRatio.length, 4);
      assert.equal(r.reward.length, 4);
      assert.equal(r.reward[0].length, 2);
      const head = BigInt(await rpcResult<string>(ctx.rpcUrl, 'eth_blockNumber'));
      assert.equal(BigInt(r.oldestBlock), head - 3n);
    },
  },
  { method: 'eth_accounts', params: () => [], check: (r) => assert.ok(Array.isArray(r)) },
  { method: 'eth_blockNumber', params: () => [], check: (r, ctx) => assert.ok(Number(BigInt(r)) >= ctx.head) },
  {
    method: 'eth_getBalance',
    params: (c) => [c.other.address, 'latest'],
    check: (r) => assert.ok(BigInt(r) > DEV_BALANCE, 'other received value'),
  },
  {
    method: 'eth_getStorageAt',
    params: (c) => [c.contract, '0x1', 'latest'],
    check: (r) => assert.equal(r, '0x' + (42).toString(16).padStart(64, '0')),
  },
  {
    method: 'eth_getTransactionCount',
    label: 'latest',
    params: (c) => [c.sender.address, 'latest'],
  },
  {
    method: 'eth_getTransactionCount',
    label: 'pending',
    params: (c) => [c.sender.address, 'pending'],
  },
  {
    method: 'eth_getCode',
    params: (c) => [c.contract, 'latest'],
    check: (r) => assert.equal(r, Store.deployedBytecode),
  },
  {
    method: 'eth_getBlockTransactionCountByNumber',
    params: (c) => [c.setBlock.number],
    check: (r, c) => {
      assert.match(r, QUANTITY, 'a QUANTITY, not a block object');
      assert.equal(Number(BigInt(r)), c.setBlock.transactions.length);
    },
  },
  {
    method: 'eth_getBlockTransactionCountByHash',
    params: (c) => [c.setBlock.hash],
    check: (r, c) => assert.equal(Number(BigInt(r)), c.setBlock.transactions.length),
  },
  {
    method: 'eth_getBlockByNumber',
    label: 'hashes',
    params: (c) => [c.setBlock.number, false],
    check: (r, c) => assert.equal(r.hash, c.setBlock.hash),
  },
  {
    method: 'eth_getBlockByNumber',
    label: 'full txs',
    params: (c) => [c.setBlock.number, true],
    check: (r, c) => assert.equal(r.transactions[0].hash, c.setHash),
  },
  {
    method: 'eth_getBlockByNumber',
    label: 'genesis',
    params: () => ['0x0', true],
    check: (r) => assert.equal(r.number, '0x0'),
  },
  { method: 'eth_getBlockByNumber', label: 'latest', params: () => ['latest', false] },
  { method: 'eth_getBlockByNumber', label: 'pending', params: () => ['pending', false] },
  {
    method: 'eth_getBlockByHash',
    label: 'hashes',
    params: (c) => [c.setBlock.hash, false],
    check: (r, c) => assert.equal(r.number, c.setBlock.number),
  },
  { method: 'eth_getBlockByHash', label: 'full txs', params: (c) => [c.setBlock.hash, true] },
  {
    method: 'eth_getTransactionByHash',
    label: 'EIP-1559 transfer',
    params: (c) => [c.transferHash],
    check: (r, c) => assert.equal(r.hash, c.transferHash),
  },
  {
    method: 'eth_getTransactionByHash',
    label: 'legacy transfer',
    params: (c) => [c.legacyHash],
    check: (r) => assert.equal(r.type, '0x0'),
  },
  {
    method: 'eth_getTransactionByHash',
    label: 'contract creation',
    params: (c) => [c.deployHash],
    check: (r) => assert.equal(r.to, null),
  },
  {
    method: 'eth_getTransactionByBlockHashAndIndex',

    params: (c) => [c.setBlock.hash, '0x0'],
    check: (r, c) => assert.equal(r.hash, c.setHash),
  },
  {
    method: 'eth_getTransactionByBlockNumberAndIndex',

    params: (c) => [c.setBlock.number, '0x0'],
    check: (r, c) => assert.equal(r.hash, c.setHash),
  },
  {
    method: 'eth_getTransactionReceipt',
    label: 'transfer',
    params: (c) => [c.transferHash],
    check: (r) => assert.equal(r.contractAddress, null),
  },
  {
    method: 'eth_getTransactionReceipt',
    label: 'legacy',
    params: (c) => [c.legacyHash],
    check: (r) => assert.equal(r.type, '0x0'),
  },
  {
    method: 'eth_getTransactionReceipt',
    label: 'creation',
    params: (c) => [c.deployHash],
    check: (r, c) => assert.equal(r.contractAddress?.toLowerCase(), c.contract.toLowerCase()),
  },
  {
    method: 'eth_getTransactionReceipt',
    label: 'with log',
    params: (c) => [c.setHash],
    check: (r, c) => {
      assert.equal(r.logs.length, 1);
      assert.equal(r.logs[0].transactionHash, c.setHash);
      assert.equal(r.logs[0].removed, false);
      assert.equal(storeIface.parseLog(r.logs[0])?.name, 'ValueSet');
    },
  },
  {
    method: 'eth_getTransactionReceipt',
    label: 'reverted',
    params: (c) => [c.revertHash],
    check: (r) => assert.equal(r.status, '0x0'),
  },
  {
    method: 'eth_getBlockReceipts',
    label: 'by number',
    params: (c) => [c.setBlock.number],
    check: (r, c) => assert.equal(r[0].transactionHash, c.setHash),
  },
  {
    method: 'eth_getBlockReceipts',
    label: 'by {blockHash}',
    params: (c) => [{ blockHash: c.setBlock.hash }],
    check: (r, c) => assert.equal(r[0].transactionHash, c.setHash),
  },
  {
    method: 'eth_sendRawTransaction',
    params: async (c) => [(await signTx(c.rpcUrl, c.sender.privateKey, { to: c.other.address, value: 1n })).raw],
    check: async (r, c) => {
      assert.match(r, /^0x[0-9a-f]{64}$/);
      const receipt = await waitForReceipt(c.rpcUrl, r); // keep later cases free of pending state
      assert.equal(receipt.status, '0x1');
    },
  },
  {
    method: 'eth_call',
    params: (c) => [{ to: c.contract, data: storeIface.encodeFunctionData('get') }, 'latest'],
    check: (r) => assert.equal(BigInt(r), 42n),
  },
  {
    method: 'eth_estimateGas',
    label: 'transfer',
    params: (c) => [{ from: c.sender.address, to: c.other.address, value: '0x1' }],
    check: (r) => assert.equal(BigInt(r), 21_000n),
  },
  {
    method: 'eth_estimateGas',
    label: 'contract call',
    params: (c) => [{ from: c.sender.address, to: c.contract, data: storeIface.encodeFunctionData('set', [7n]) }],
    check: (r) => assert.ok(BigInt(r) > 21_000n),
  },
  { method: 'eth_coinbase', params: () => [], check: (r) => assert.match(r, /^0x[0-9a-fA-F]{40}$/) },
  { method: 'net_version', params: () => [], check: (r) => assert.equal(r, '9000') },
  { method: 'net_listening', params: () => [], check: (r) => assert.equal(r, true) },
  { method: 'net_peerCount', params: () => [] },
  { method: 'web3_clientVersion', params: () => [] },
  {
    method: 'web3_sha3',
    params: () => ['0x68656c6c6f'],
    check: (r) => assert.equal(r, '0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8'),
  },
];

describe('JSON-RPC conformance (OpenRPC result schemas)', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  const ctx = {} as Ctx;

  before(async () => {
    node = await startNode();
    ctx.rpcUrl = node.http;
    const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
    [ctx.sender, ctx.other] = nonCoinbaseAccounts(coinbase) as [DevAccount, DevAccount];
    const url = node.http;
    const pk = ctx.sender.privateKey;
    ctx.transferHash = (await sendTx(url, pk, { to: ctx.other.address, value: 10n ** 18n })).hash;
    ctx.legacyHash = (await sendTx(url, pk, { to: ctx.other.address, value: 1n, type: 0 })).hash;
    const deploy = await sendTx(url, pk, {
      to: null,
      data: Store.bytecode + storeIface.encodeDeploy([7n, 'conformance']).slice(2),
      gas: 2_000_000n,
    });
    assert.equal(deploy.receipt.status, '0x1', 'deploy succeeded');
    ctx.deployHash = deploy.hash;
    ctx.contract = deploy.receipt.contractAddress;
    const set = await sendTx(url, pk, {
      to: ctx.contract,
      data: storeIface.encodeFunctionData('set', [42n]),
      gas: 200_000n,
    });
    assert.equal(set.receipt.status, '0x1', 'set succeeded');
    ctx.setHash = set.hash;
    const rev = await sendTx(url, pk, {
      to: ctx.contract,
      data: storeIface.encodeFunctionData('setAndFail', [5n]),
      gas: 200_000n,
    });
    ctx.revertHash = rev.hash;
    ctx.setBlock = await rpcResult(url, 'eth_getBlockByNumber', [set.receipt.blockNumber, false]);
    ctx.head = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));
  });

  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  for (const transport of ['http', 'ws'] as const) {
    describe(`every method over ${transport}`, () => {
      let ws: WsRpc | undefined;
      const call = async (method: string, params: unknown[]): Promise<RpcResponse> =>
        transport === 'http' ? rpc(node.http, method, params) : ws!.request(method, params);

      before(async () => {
        if (transport === 'ws') ws = await WsRpc.connect(node.ws);
      });
      after(async () => {
        await ws?.close();
      });

      for (const c of cases) {
        const name = `${c.method}${c.label ? ` (${c.label})` : ''}`;
        const run = async (): Promise<unknown> => {
          const params = await c.params(ctx);
          const res = await call(c.method, params);
          assert.equal(res.jsonrpc, '2.0');
          assert.equal(
            res.error,
            undefined,
            `${c.method}(${JSON.stringify(params).slice(0, 200)}) → error ${JSON.stringify(res.error)}`,
          );
          assert.ok('result' in res, 'response has a result');
          return res.result;
        };
        it(name, async () => {
          const result = await run();
          assertConforms(c.method, result);
          await c.check?.(result, ctx);
        });
      }

      it('unknown hashes and numbers give null', async () => {
        const far = hex(ctx.head + 1_000_000);
        const nullCases: Array<[string, unknown[]]> = [
          ['eth_getTransactionByHash', [RANDOM_HASH]],
          ['eth_getTransactionReceipt', [RANDOM_HASH]],
          ['eth_getBlockByHash', [RANDOM_HASH, false]],
          ['eth_getBlockByNumber', [far, false]],
          ['eth_getBlockTransactionCountByHash', [RANDOM_HASH]],
          ['eth_getBlockTransactionCountByNumber', [far]],
          ['eth_getTransactionByBlockHashAndIndex', [RANDOM_HASH, '0x0']],
          ['eth_getTransactionByBlockNumberAndIndex', [far, '0x0']],
          ['eth_getTransactionByBlockNumberAndIndex', [ctx.setBlock.number, '0x63']],
          ['eth_getBlockReceipts', [far]],
        ];
        for (const [method, params] of nullCases) {
          const res = await call(method, params);
          assert.equal(
            res.error,
            undefined,
            `${method}(${JSON.stringify(params)}) → error ${JSON.stringify(res.error)}`,
          );
          assert.equal(res.result, null, `${method}(${JSON.stringify(params)}) must be null`);
          assertConforms(method, res.result);
        }
      });

      it('eth_getBalance accepts every block selector form', async () => {
        const addr = ctx.sender.address;
        // No pending txs of the sender, so that latest == pending below.
        await waitFor('empty mempool for sender', async () => {
          const [p, l] = await Promise.all([
            rpcResult<string>(node.http, 'eth_getTransactionCount', [addr, 'pending']),
            rpcResult<string>(node.http, 'eth_getTransactionCount', [addr, 'latest']),
          ]);
          return p === l ? true : undefined;
        });
        const head = (await call('eth_blockNumber', [])).result as string;
        const latest = (await call('eth_getBalance', [addr, 'latest'])).result as string;
        const blockHash = ctx.setBlock.hash as string;
        const atSet = (await call('eth_getBalance', [addr, ctx.setBlock.number])).result as string;
        const selectors: Array<[unknown, string | undefined]> = [
          [head, latest],
          ['latest', latest],
          ['pending', latest],
          ['safe', latest],
          ['finalized', latest],
          ['earliest', hex(DEV_BALANCE)],
          ['0x0', hex(DEV_BALANCE)],
          [{ blockHash }, atSet],
          [{ blockHash, requireCanonical: true }, atSet],
          [{ blockHash, requireCanonical: false }, atSet],
          [{ blockNumber: ctx.setBlock.number }, atSet],
          [{ blockNumber: '0x0' }, hex(DEV_BALANCE)],
        ];
        for (const [sel, expected] of selectors) {
          const res = await call('eth_getBalance', [addr, sel]);
          assert.equal(res.error, undefined, `selector ${JSON.stringify(sel)} → ${JSON.stringify(res.error)}`);
          assertConforms('eth_getBalance', res.result);
          assert.equal(res.result, expected, `balance at ${JSON.stringify(sel)}`);
        }
        // other state methods with an EIP-1898 selector
        const parentSel = { blockHash: ctx.setBlock.parentHash as string };
        const storageBefore = await call('eth_getStorageAt', [ctx.contract, '0x1', parentSel]);
        assert.equal(BigInt(storageBefore.result as string), 7n, 'storage before set');
        const callBefore = await call('eth_call', [
          { to: ctx.contract, data: storeIface.encodeFunctionData('get') },
          parentSel,
        ]);
        assert.equal(BigInt(callBefore.result as string), 7n, 'eth_call before set');
        const codeAtGenesis = await call('eth_getCode', [ctx.contract, { blockNumber: '0x0' }]);
        assert.equal(codeAtGenesis.result, '0x');
        const nonceAtGenesis = await call('eth_getTransactionCount', [addr, { blockNumber: '0x0' }]);
        assert.equal(nonceAtGenesis.result, '0x0');
      });

      it('reverts: code 3, "execution reverted: <reason>", data = revert bytes (eth_call and eth_estimateGas)', async () => {
        for (const method of ['eth_call', 'eth_estimateGas']) {
          const res = await call(method, [
            { from: ctx.sender.address, to: ctx.contract, data: storeIface.encodeFunctionData('fail') },
          ]);
          assert.ok(res.error, `${method} must fail`);
          assert.equal(res.error.code, 3, JSON.stringify(res.error));
          assert.equal(res.error.message, 'execution reverted: nope');
          assert.equal(res.error.data, NOPE_REVERT_DATA);
          const custom = await call(method, [
            { from: ctx.sender.address, to: ctx.contract, data: storeIface.encodeFunctionData('failCustom') },
          ]);
          assert.ok(custom.error, `${method} custom error must fail`);
          assert.equal(custom.error.code, 3, JSON.stringify(custom.error));
          assert.match(custom.error.message, /^execution reverted/);
          const parsed = storeIface.parseError(custom.error.data as string);
          assert.equal(parsed?.name, 'Unauthorized');
          assert.equal(parsed?.args[1], 42n);
        }
      });
    });
  }

  it('a fresh wallet with no history reads as zero everywhere', async () => {
    const w = Wallet.createRandom();
    assert.equal(await rpcResult(node.http, 'eth_getBalance', [w.address, 'latest']), '0x0');
    assert.equal(await rpcResult(node.http, 'eth_getTransactionCount', [w.address, 'latest']), '0x0');
    assert.equal(await rpcResult(node.http, 'eth_getCode', [w.address, 'latest']), '0x');
    assert.equal(await rpcResult(node.http, 'eth_getStorageAt', [w.address, '0x0', 'latest']), '0x' + '00'.repeat(32));
  });
});
