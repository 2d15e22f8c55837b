// State and block overrides on eth_call, eth_estimateGas and debug_traceCall (geth's semantics), over HTTP and WS,
// with each result validated against execution-apis' OpenRPC schema; viem's `stateOverride` and ethers' raw send.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface, JsonRpcProvider, SigningKey, Wallet, getAddress, hashMessage } from 'ethers';
import { createPublicClient, defineChain, http, type Hex } from 'viem';
import { CHAIN_ID, nonCoinbaseAccounts, type DevAccount } from '../helpers/accounts.ts';
import { assertConforms, methodsWithSchema } from '../helpers/openrpc.ts';
import { type KestrelNode, type RpcResponse, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { compileSource, testContracts } from '../helpers/solc.ts';
import { sendTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const { Store } = testContracts();
const store = new Interface(Store.abi);
const BlockInfo = compileSource(
  `
// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;
contract BlockInfo {
  function info() external view returns (uint256, uint256, address, uint256, uint256, uint256, uint256) {
    return (block.number, block.timestamp, block.coinbase, block.gaslimit, block.prevrandao, block.basefee, block.blobbasefee);
  }
}`,
  'BlockInfo.sol',
)['BlockInfo']!;
const blockInfo = new Interface(BlockInfo.abi);

const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
const ANY = '0x' + 'a1'.repeat(20);
const ECRECOVER = '0x0000000000000000000000000000000000000001';
const MOVED = '0x0000000000000000000000000000000000001234';

describe('state and block overrides', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let sender: DevAccount;
  let contract: string;

  before(async () => {
    node = await startNode();
    const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
    [sender] = nonCoinbaseAccounts(coinbase) as [DevAccount];
    const deploy = await sendTx(node.http, sender.privateKey, {
      to: null,
      data: Store.bytecode + store.encodeDeploy([7n, 'ov']).slice(2),
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
      const call = async (method: string, params: unknown[]): Promise<RpcResponse> =>
        transport === 'http' ? rpc(node.http, method, params) : ws!.request(method, params);
      const ok = async (method: string, params: unknown[]): Promise<any> => {
        const res = await call(method, params);
        assert.equal(res.error, undefined, `${method} → ${JSON.stringify(res.error)}`);
        if (methodsWithSchema().includes(method)) assertConforms(method, res.result);
        return res.result;
      };
      before(async () => {
        if (transport === 'ws') ws = await WsRpc.connect(node.ws);
      });
      after(async () => {
        await ws?.close();
      });

      it('eth_call: balance, stateDiff and state', async () => {
        const bal = await ok('eth_call', [
          { to: contract, data: store.encodeFunctionData('balanceOfThis') },
          'latest',
          { [contract]: { balance: '0x1234' } },
        ]);
        assert.equal(BigInt(bal), 0x1234n);
        const diff = await ok('eth_call', [
          { to: contract, data: store.encodeFunctionData('get') },
          'latest',
          { [contract]: { stateDiff: { [word(1n)]: word(99n) } } },
        ]);
        assert.equal(BigInt(diff), 99n);
        // stateDiff keeps the other slots; state replaces the whole storage (owner in slot 0 becomes zero).
        const ownerDiff = await ok('eth_call', [
          { to: contract, data: store.encodeFunctionData('owner') },
          'latest',
          { [contract]: { stateDiff: { [word(1n)]: word(99n) } } },
        ]);
        assert.equal(BigInt(ownerDiff), BigInt(sender.address));
        const ownerState = await ok('eth_call', [
          { to: contract, data: store.encodeFunctionData('owner') },
          'latest',
          { [contract]: { state: { [word(1n)]: word(5n) } } },
        ]);
        assert.equal(BigInt(ownerState), 0n);
        const valueState = await ok('eth_call', [
          { to: contract, data: store.encodeFunctionData('get') },
          'latest',
          { [contract]: { state: { [word(1n)]: word(5n) } } },
        ]);
        assert.equal(BigInt(valueState), 5n);
        // Nothing leaked into the next plain call (pooled contexts are untouched).
        assert.equal(BigInt(await ok('eth_call', [{ to: contract, data: store.encodeFunctionData('get') }])), 7n);
      });

      it('eth_call: code on a fresh address, nonce, errors', async () => {
        const got = await ok('eth_call', [
          { to: ANY, data: store.encodeFunctionData('get') },
          'latest',
          { [ANY]: { code: Store.deployedBytecode, stateDiff: { [word(1n)]: word(3n) } } },
        ]);
        assert.equal(BigInt(got), 3n);
        const both = await call('eth_call', [{ to: contract }, 'latest', { [contract]: { state: {}, stateDiff: {} } }]);
        assert.equal(both.error?.code, -32000);
        assert.match(both.error!.message, /^account 0x[0-9a-fA-F]{40} has both 'state' and 'stateDiff'$/);
        const notPre = await call('eth_call', [
          { to: contract },
          'latest',
          { [ANY]: { movePrecompileToAddress: MOVED } },
        ]);
        assert.deepEqual(notPre.error, { code: -32000, message: `account ${getAddress(ANY)} is not a precompile` });
        const initcode = await call('eth_call', [{ data: '0x' + '60'.repeat(49153) }]);
        assert.deepEqual(initcode.error, {
          code: -32000,
          message: 'max initcode size exceeded: code size 49153 limit 49152',
        });
        const badField = await call('eth_call', [{ to: contract }, 'latest', { [contract]: { balance: 'x' } }]);
        assert.equal(badField.error?.code, -32602);
      });

      it('eth_call: movePrecompileToAddress', async () => {
        const key = new SigningKey('0x' + '42'.repeat(32));
        const digest = hashMessage('kestrel');
        const sig = key.sign(digest);
        const input = digest + word(BigInt(sig.v)).slice(2) + sig.r.slice(2) + sig.s.slice(2);
        const signer = new Wallet(key.privateKey).address;
        const atMoved = await ok('eth_call', [
          { to: MOVED, data: input },
          'latest',
          { [ECRECOVER]: { movePrecompileToAddress: MOVED } },
        ]);
        assert.equal(BigInt(atMoved), BigInt(signer), 'ecrecover answers at its new address');
        const atOld = await ok('eth_call', [
          { to: ECRECOVER, data: input },
          'latest',
          { [ECRECOVER]: { movePrecompileToAddress: MOVED } },
        ]);
        assert.equal(atOld, '0x', 'the old address is an empty account now');
        const plain = await ok('eth_call', [{ to: ECRECOVER, data: input }]);
        assert.equal(BigInt(plain), BigInt(signer));
        const taken = await call('eth_call', [
          { to: MOVED },
          'latest',
          { [ECRECOVER]: { movePrecompileToAddress: MOVED }, [MOVED]: { balance: '0x1' } },
        ]);
        assert.match(taken.error!.message, /^account 0x0{36}1234 is already overridden$/);
      });

      it('eth_call: block overrides', async () => {
        const coinbase = '0x' + 'c0'.repeat(20);
        const randao = word(0xfeedn);
        const raw = await ok('eth_call', [
          {
            to: ANY,
            data: blockInfo.encodeFunctionData('info'),
            maxFeePerGas: '0x100',
            maxPriorityFeePerGas: '0x0',
            from: sender.address,
          },
          'latest',
          { [ANY]: { code: BlockInfo.deployedBytecode } },
          {
            number: '0x1000',
            time: '0x5000',
            gasLimit: '0x2000000',
            feeRecipient: coinbase,
            prevRandao: randao,
            baseFeePerGas: '0x7',
            blobBaseFee: '0x9',
          },
        ]);
        const [n, t, c, g, r, bf, bbf] = blockInfo.decodeFunctionResult('info', raw);
        assert.equal(n, 0x1000n);
        assert.equal(t, 0x5000n);
        assert.equal(c.toLowerCase(), coinbase);
        assert.equal(g, 0x2000000n);
        assert.equal(r, 0xfeedn);
        assert.equal(bf, 7n);
        assert.equal(bbf, 9n);
        const refused = await call('eth_call', [{ to: ANY }, 'latest', {}, { beaconRoot: word(1n) }]);
        assert.equal(refused.error?.message, 'block override "beaconRoot" is not supported for this RPC method');
      });

      it('eth_estimateGas with overrides', async () => {
        const poor = Wallet.createRandom().address;
        const noFunds = await call('eth_estimateGas', [
          { from: poor, to: ANY, value: '0x10', maxFeePerGas: '0x3b9aca00' },
        ]);
        assert.ok(noFunds.error, 'an unfunded priced transfer cannot be estimated');
        const funded = await ok('eth_estimateGas', [
          { from: poor, to: ANY, value: '0x10', maxFeePerGas: '0x3b9aca00' },
          'latest',
          { [poor]: { balance: '0xde0b6b3a7640000' } },
        ]);
        assert.equal(funded, '0x5208');
        const withCode = await ok('eth_estimateGas', [
          { from: sender.address, to: ANY, data: store.encodeFunctionData('set', [5n]) },
          'latest',
          { [ANY]: { code: Store.deployedBytecode } },
        ]);
        assert.ok(BigInt(withCode) > 21000n + 20000n, 'runs the overridden code (a fresh SSTORE)');
        const plain = await ok('eth_estimateGas', [
          { from: sender.address, to: ANY, data: store.encodeFunctionData('set', [5n]) },
        ]);
        assert.ok(BigInt(plain) < BigInt(withCode));
      });

      it('eth_createAccessList', async () => {
        const get = await ok('eth_createAccessList', [
          { from: sender.address, to: contract, data: store.encodeFunctionData('get') },
        ]);
        assert.deepEqual(get.accessList, [{ address: contract.toLowerCase(), storageKeys: [word(1n)] }]);
        assert.equal(get.error, undefined);
        // The gas the call uses with the list included (2400 + 1900 per slot in the list, warm SLOAD).
        const withList = await ok('eth_estimateGas', [
          { from: sender.address, to: contract, data: store.encodeFunctionData('get'), accessList: get.accessList },
        ]);
        assert.ok(BigInt(get.gasUsed) <= BigInt(withList));
        const transfer = await ok('eth_createAccessList', [{ from: sender.address, to: ANY, value: '0x1' }, 'latest']);
        assert.deepEqual(transfer, { accessList: [], gasUsed: '0x5208' });
        const reverted = await ok('eth_createAccessList', [
          { from: sender.address, to: contract, data: store.encodeFunctionData('setAndFail', [3n]) },
        ]);
        assert.equal(reverted.error, 'execution reverted');
        assert.deepEqual(reverted.accessList, [{ address: contract.toLowerCase(), storageKeys: [word(1n)] }]);
        const overridden = await ok('eth_createAccessList', [
          { from: sender.address, to: contract, data: store.encodeFunctionData('balanceOfThis') },
          'latest',
          { [contract]: { code: BlockInfo.deployedBytecode } },
        ]);
        assert.equal(overridden.error, 'execution reverted', 'the overriding code has no such function');
        const viaOther = await ok('eth_createAccessList', [
          { from: sender.address, to: ANY, data: store.encodeFunctionData('get') },
          'latest',
          { [ANY]: { code: Store.deployedBytecode } },
        ]);
        assert.deepEqual(viaOther.accessList, [{ address: ANY, storageKeys: [word(1n)] }]);
      });

      it('debug_traceCall with stateOverrides and blockOverrides', async () => {
        const trace = await ok('debug_traceCall', [
          { to: ANY, data: blockInfo.encodeFunctionData('info') },
          'latest',
          {
            tracer: 'callTracer',
            stateOverrides: { [ANY]: { code: BlockInfo.deployedBytecode } },
            blockOverrides: { number: '0x77' },
          },
        ]);
        assert.equal(trace.to.toLowerCase(), ANY);
        const [n] = blockInfo.decodeFunctionResult('info', trace.output);
        assert.equal(n, 0x77n);
        const structs = await ok('debug_traceCall', [
          { to: contract, data: store.encodeFunctionData('get') },
          'latest',
          { stateOverrides: { [contract]: { stateDiff: { [word(1n)]: word(11n) } } } },
        ]);
        assert.equal(BigInt('0x' + structs.returnValue.replace(/^0x/, '')), 11n);
      });
    });
  }

  it('viem stateOverride and ethers send', async () => {
    const chain = defineChain({
      id: CHAIN_ID,
      name: 'kestrel',
      nativeCurrency: { name: 'K', symbol: 'K', decimals: 18 },
      rpcUrls: { default: { http: [node.http] } },
    });
    const client = createPublicClient({ chain, transport: http(node.http) });
    const res = await client.call({
      to: contract as Hex,
      data: store.encodeFunctionData('get') as Hex,
      stateOverride: [{ address: contract as Hex, stateDiff: [{ slot: word(1n) as Hex, value: word(123n) as Hex }] }],
    });
    assert.equal(BigInt(res.data!), 123n);
    const bal = await client.call({
      to: contract as Hex,
      data: store.encodeFunctionData('balanceOfThis') as Hex,
      stateOverride: [{ address: contract as Hex, balance: 77n }],
    });
    assert.equal(BigInt(bal.data!), 77n);
    const provider = new JsonRpcProvider(node.http, CHAIN_ID, { staticNetwork: true });
    const out = await provider.send('eth_call', [
      { to: contract, data: store.encodeFunctionData('get') },
      'latest',
      { [contract]: { state: { [word(1n)]: word(8n) } } },
    ]);
    assert.equal(store.decodeFunctionResult('get', out)[0], 8n);
    provider.destroy();
  });
});
