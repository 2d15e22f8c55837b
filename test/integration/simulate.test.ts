// eth_simulateV1 on Kestrel's own chain, over HTTP and WS, each result validated against the OpenRPC schema: chained
// blocks, nonces and balances carried between calls, logs and ERC-7528 transfer logs, reverts inside results,
// validation errors with geth's codes, and viem's simulateCalls.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface, Wallet, keccak256 } from 'ethers';
import { createPublicClient, defineChain, http, parseAbi, type Hex } from 'viem';
import { CHAIN_ID, nonCoinbaseAccounts, type DevAccount } from '../helpers/accounts.ts';
import { assertConforms } from '../helpers/openrpc.ts';
import { type KestrelNode, type RpcResponse, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { testContracts } from '../helpers/solc.ts';
import { sendTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const { Store } = testContracts();
const store = new Interface(Store.abi);
const TRANSFER_TOPIC = keccak256(Buffer.from('Transfer(address,address,uint256)'));
const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const pad = (a: string) => '0x' + a.slice(2).toLowerCase().padStart(64, '0');

describe('eth_simulateV1', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let sender: DevAccount;
  let contract: string;

  before(async () => {
    node = await startNode();
    const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
    [sender] = nonCoinbaseAccounts(coinbase) as [DevAccount];
    const deploy = await sendTx(node.http, sender.privateKey, {
      to: null,
      data: Store.bytecode + store.encodeDeploy([7n, 'sim']).slice(2),
      gas: 2_000_000n,
    });
    contract = deploy.receipt.contractAddress;
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  for (const transport of ['http', 'ws'] as const) {
    describe(`over ${transport}`, () => {
      let ws: WsRpc | undefined;
      const call = async (params: unknown[]): Promise<RpcResponse> =>
        transport === 'http' ? rpc(node.http, 'eth_simulateV1', params) : ws!.request('eth_simulateV1', params);
      const ok = async (params: unknown[]): Promise<any[]> => {
        const res = await call(params);
        assert.equal(res.error, undefined, JSON.stringify(res.error));
        assertConforms('eth_simulateV1', res.result);
        return res.result as any[];
      };
      before(async () => {
        if (transport === 'ws') ws = await WsRpc.connect(node.ws);
      });
      after(async () => {
        await ws?.close();
      });

      it('two blocks: state, nonces and block numbers carry over; logs; reverts are results', async () => {
        const fresh = Wallet.createRandom().address;
        const head = BigInt(await rpcResult<string>(node.http, 'eth_blockNumber'));
        const blocks = await ok([
          {
            blockStateCalls: [
              {
                stateOverrides: { [fresh]: { balance: '0xde0b6b3a7640000' } },
                calls: [
                  { from: fresh, to: contract, data: store.encodeFunctionData('set', [5n]) },
                  { from: fresh, to: contract, data: store.encodeFunctionData('fail') },
                ],
              },
              { calls: [{ from: fresh, to: contract, data: store.encodeFunctionData('get') }] },
            ],
            returnFullTransactions: true,
          },
          'latest',
        ]);
        assert.equal(blocks.length, 2);
        assert.equal(BigInt(blocks[0].number), head + 1n);
        assert.equal(BigInt(blocks[1].number), head + 2n);
        assert.equal(blocks[1].parentHash, blocks[0].hash);
        const [set, fail] = blocks[0].calls;
        assert.equal(set.status, '0x1');
        assert.equal(set.logs.length, 1);
        assert.equal(set.logs[0].address, contract.toLowerCase());
        assert.equal(set.logs[0].blockHash, blocks[0].hash);
        assert.equal(fail.status, '0x0');
        assert.equal(fail.error.code, 3);
        assert.equal(fail.error.message, 'execution reverted: nope');
        assert.equal(fail.returnData, '0x');
        assert.equal(BigInt(blocks[1].calls[0].returnData), 5n, "the second block sees the first block's write");
        assert.equal(blocks[0].transactions[0].from.toLowerCase(), fresh.toLowerCase());
        assert.equal(blocks[0].transactions[1].nonce, '0x1', 'nonces follow the sender');
        assert.equal(BigInt(blocks[0].gasUsed), BigInt(set.gasUsed) + BigInt(fail.gasUsed));
        // Nothing reached the chain.
        assert.equal(
          BigInt(
            await rpcResult<string>(node.http, 'eth_call', [{ to: contract, data: store.encodeFunctionData('get') }]),
          ),
          7n,
        );
      });

      it('traceTransfers: ERC-7528 logs for ether moved by calls', async () => {
        const a = Wallet.createRandom().address;
        const b = Wallet.createRandom().address;
        const blocks = await ok([
          {
            blockStateCalls: [
              {
                stateOverrides: { [a]: { balance: '0x1000' } },
                calls: [
                  { from: a, to: b, value: '0x10' },
                  { from: a, to: contract, value: '0x20', data: store.encodeFunctionData('pay') },
                ],
              },
            ],
            traceTransfers: true,
          },
        ]);
        const [transfer, pay] = blocks[0].calls;
        assert.deepEqual(
          transfer.logs.map((l: any) => [l.address, l.topics]),
          [[NATIVE, [TRANSFER_TOPIC, pad(a), pad(b)]]],
        );
        assert.equal(BigInt(transfer.logs[0].data), 0x10n);
        assert.equal(pay.logs.length, 2, 'the transfer first, then the Paid event');
        assert.equal(pay.logs[0].address, NATIVE);
        assert.equal(pay.logs[1].address, contract.toLowerCase());
        assert.equal(pay.logs[1].logIndex, '0x2', 'log indexes run over the block');
        // SELFDESTRUCT moves the whole balance without a call frame of its own.
        const k = Wallet.createRandom().address;
        const heir = Wallet.createRandom().address;
        const [sd] = await ok([
          {
            blockStateCalls: [
              {
                stateOverrides: { [k]: { code: '0x73' + heir.slice(2) + 'ff', balance: '0x99' } },
                calls: [{ from: a, to: k }],
              },
            ],
            traceTransfers: true,
          },
        ]);
        assert.deepEqual(
          sd.calls[0].logs.map((l: any) => [l.address, l.topics, BigInt(l.data)]),
          [[NATIVE, [TRANSFER_TOPIC, pad(k), pad(heir)], 0x99n]],
        );
      });

      it('validation errors, limits and block order', async () => {
        const poor = Wallet.createRandom().address;
        const noFunds = await call([{ blockStateCalls: [{ calls: [{ from: poor, to: contract, value: '0x1' }] }] }]);
        assert.equal(noFunds.error?.code, -38014);
        assert.match(
          noFunds.error!.message,
          /^err: insufficient funds for gas \* price \+ value: address 0x[0-9a-fA-F]{40} have 0 want 1 \(supplied gas \d+\)$/,
        );
        const lowNonce = await call([
          {
            blockStateCalls: [
              { calls: [{ from: sender.address, to: contract, nonce: '0x0', maxFeePerGas: '0x174876e800' }] },
            ],
            validation: true,
          },
        ]);
        assert.equal(lowNonce.error?.code, -38010);
        const order = await call([{ blockStateCalls: [{ blockOverrides: { number: '0x1' } }] }]);
        assert.equal(order.error?.code, -38020);
        const empty = await call([{ blockStateCalls: [] }]);
        assert.deepEqual(empty.error, { code: -32602, message: 'empty input' });
        const many = await call([{ blockStateCalls: Array.from({ length: 257 }, () => ({})) }]);
        assert.deepEqual(many.error, { code: -38026, message: 'too many blocks' });
        const gasLimit = await call([
          {
            blockStateCalls: [
              { blockOverrides: { gasLimit: '0x5208' }, calls: [{ to: contract }, { to: contract, gas: '0x5208' }] },
            ],
          },
        ]);
        assert.equal(gasLimit.error?.code, -38015);
        const initcode = await call([{ blockStateCalls: [{ calls: [{ data: '0x' + '60'.repeat(49153) }] }] }]);
        assert.equal(initcode.error?.code, -38025);
      });
    });
  }

  it('viem simulateCalls', async () => {
    const chain = defineChain({
      id: CHAIN_ID,
      name: 'kestrel',
      nativeCurrency: { name: 'K', symbol: 'K', decimals: 18 },
      rpcUrls: { default: { http: [node.http] } },
    });
    const client = createPublicClient({ chain, transport: http(node.http) });
    const abi = parseAbi(['function set(uint256 v)', 'function get() view returns (uint256)']);
    const { results } = await client.simulateCalls({
      account: sender.address as Hex,
      calls: [
        { to: contract as Hex, abi, functionName: 'set', args: [11n] },
        { to: contract as Hex, abi, functionName: 'get' },
        { to: Wallet.createRandom().address as Hex, value: 1n },
      ],
    });
    assert.equal(results.length, 3);
    assert.equal(results[0]!.status, 'success');
    assert.equal(results[1]!.result, 11n);
    assert.equal(results[2]!.status, 'success');
    assert.equal(results[2]!.gasUsed, 21000n);
  });
});
