// viem against a real kestreld, over the HTTP transport and over the WebSocket transport: deploy, read,
// write, receipts and their logs, revert reasons, block shapes, EIP-1898 historical reads.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  http,
  parseEventLogs,
  webSocket,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Chain,
  type Transport,
  type Account,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CHAIN_ID, DEV_BALANCE, nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { computeBlockHash } from '../helpers/chain.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode } from '../helpers/node.ts';
import { testContracts } from '../helpers/solc.ts';

const { Store } = testContracts();
const abi = Store.abi;

function revertedError(e: unknown): ContractFunctionRevertedError {
  assert.ok(e instanceof BaseError, `expected a viem BaseError, got ${String(e)}`);
  const inner = e.walk((x) => x instanceof ContractFunctionRevertedError);
  assert.ok(inner instanceof ContractFunctionRevertedError, `no ContractFunctionRevertedError in: ${e.message}`);
  return inner;
}

let node: KestrelNode;
let senders: Array<{ privateKey: Hex }> = [];

describe('viem against kestreld', { timeout: 120_000 }, () => {
  before(async () => {
    node = await startNode();
    const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
    senders = nonCoinbaseAccounts(coinbase);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  for (const [kind, senderIndex] of [
    ['http', 0],
    ['ws', 1],
  ] as const) {
    describe(`over ${kind}`, () => {
      let chain: Chain;
      let pub: PublicClient<Transport, Chain>;
      let wallet: WalletClient<Transport, Chain, Account>;
      let address: Hex;
      let contract: Hex;

      before(async () => {
        chain = defineChain({
          id: CHAIN_ID,
          name: 'Kestrel dev',
          nativeCurrency: { name: 'Kestrel', symbol: 'KST', decimals: 18 },
          rpcUrls: { default: { http: [node.http], webSocket: [node.ws] } },
        });
        const transport =
          kind === 'http'
            ? http(node.http, { retryCount: 0 })
            : webSocket(node.ws, { retryCount: 0, reconnect: false });
        const account = privateKeyToAccount(senders[senderIndex]!.privateKey);
        address = account.address;
        pub = createPublicClient({ chain, transport, pollingInterval: 100 }) as PublicClient<Transport, Chain>;
        wallet = createWalletClient({ chain, transport, account, pollingInterval: 100 });
      });

      after(async () => {
        if (kind === 'ws' && pub) {
          const t = pub.transport as unknown as { getRpcClient?: () => Promise<{ close(): void }> };
          (await t.getRpcClient?.())?.close();
        }
      });

      it('chain id and a funded account', async () => {
        assert.equal(await pub.getChainId(), CHAIN_ID);
        assert.equal(await pub.getBalance({ address, blockNumber: 0n }), DEV_BALANCE);
      });

      it('transfers value (EIP-1559 and legacy) with exact balances', async () => {
        for (const type of ['eip1559', 'legacy'] as const) {
          const to = privateKeyToAccount(generatePrivateKey()).address;
          const before = await pub.getBalance({ address });
          const hash = await wallet.sendTransaction({ to, value: 5_000n, type });
          const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 15_000 });
          assert.equal(receipt.status, 'success');
          assert.equal(receipt.type, type);
          assert.equal(receipt.gasUsed, 21_000n);
          assert.equal(receipt.contractAddress, null);
          assert.equal(receipt.to?.toLowerCase(), to.toLowerCase());
          assert.equal(await pub.getBalance({ address: to }), 5_000n);
          assert.equal(
            await pub.getBalance({ address }),
            before - 5_000n - receipt.gasUsed * receipt.effectiveGasPrice,
          );
          const tx = await pub.getTransaction({ hash });
          assert.equal(tx.type, type);
          assert.equal(tx.chainId, CHAIN_ID);
          assert.equal(tx.blockHash, receipt.blockHash);
        }
      });

      it('deploys Store and reads it', async () => {
        const nonce = await pub.getTransactionCount({ address });
        const hash = await wallet.deployContract({ abi, bytecode: Store.bytecode, args: [7n, `via ${kind}`] });
        const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 15_000 });
        assert.equal(receipt.status, 'success');
        const expected = getContractAddress({ from: address, nonce: BigInt(nonce) });
        assert.equal(receipt.contractAddress?.toLowerCase(), expected.toLowerCase());
        contract = receipt.contractAddress!;
        assert.equal(await pub.getCode({ address: contract }), Store.deployedBytecode);
        assert.equal(await pub.readContract({ address: contract, abi, functionName: 'get' }), 7n);
        assert.equal(await pub.readContract({ address: contract, abi, functionName: 'label' }), `via ${kind}`);
        assert.equal(
          ((await pub.readContract({ address: contract, abi, functionName: 'owner' })) as string).toLowerCase(),
          address.toLowerCase(),
        );
      });

      it('writes, waits for the receipt and decodes the event from the receipt logs', async () => {
        const { request } = await pub.simulateContract({
          account: wallet.account,
          address: contract,
          abi,
          functionName: 'set',
          args: [42n],
        });
        const hash = await wallet.writeContract(request);
        const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 15_000 });
        assert.equal(receipt.status, 'success');
        const events = parseEventLogs({ abi, logs: receipt.logs, eventName: 'ValueSet' }) as unknown as Array<{
          args: { setter: Hex; newValue: bigint; note: string };
          address: Hex;
          blockHash: Hex;
          logIndex: number;
        }>;
        assert.equal(events.length, 1);
        assert.equal(events[0]!.args.setter.toLowerCase(), address.toLowerCase());
        assert.equal(events[0]!.args.newValue, 42n);
        assert.equal(events[0]!.args.note, 'set');
        assert.equal(events[0]!.address.toLowerCase(), contract.toLowerCase());
        assert.equal(events[0]!.blockHash, receipt.blockHash);
        assert.equal(events[0]!.logIndex, 0);
        assert.equal(await pub.readContract({ address: contract, abi, functionName: 'get' }), 42n);
        assert.equal(
          await pub.readContract({
            address: contract,
            abi,
            functionName: 'get',
            blockNumber: receipt.blockNumber - 1n,
          }),
          7n,
        );
      });

      it('revert reasons surface as ContractFunctionRevertedError (call, simulate, estimate, custom error)', async () => {
        await assert.rejects(pub.readContract({ address: contract, abi, functionName: 'fail' }), (e) => {
          assert.equal(revertedError(e).reason, 'nope');
          return true;
        });
        await assert.rejects(
          pub.simulateContract({
            account: wallet.account,
            address: contract,
            abi,
            functionName: 'setAndFail',
            args: [5n],
          }),
          (e) => {
            assert.equal(revertedError(e).reason, 'nope');
            return true;
          },
        );
        await assert.rejects(
          pub.estimateContractGas({
            account: wallet.account,
            address: contract,
            abi,
            functionName: 'setAndFail',
            args: [5n],
          }),
          (e) => {
            assert.equal(revertedError(e).reason, 'nope');
            return true;
          },
        );
        await assert.rejects(
          pub.readContract({ account: address, address: contract, abi, functionName: 'failCustom' }),
          (e) => {
            const inner = revertedError(e);
            assert.equal(inner.data?.errorName, 'Unauthorized');
            assert.equal((inner.data?.args?.[0] as string).toLowerCase(), address.toLowerCase());
            assert.equal(inner.data?.args?.[1], 42n);
            return true;
          },
        );
      });

      it('a mined revert has status "reverted"', async () => {
        const hash = await wallet.writeContract({
          address: contract,
          abi,
          functionName: 'setAndFail',
          args: [5n],
          gas: 200_000n,
        });
        const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 15_000 });
        assert.equal(receipt.status, 'reverted');
        const block = await pub.getBlock({ blockHash: receipt.blockHash });
        assert.ok(block.transactions.includes(hash));
        assert.equal(await pub.readContract({ address: contract, abi, functionName: 'get' }), 42n);
      });

      it('getBlock shapes (hashes and full txs) are accepted by viem and hash-consistent', async () => {
        const head = await pub.getBlockNumber();
        const latest = await pub.getBlock({ blockTag: 'latest', includeTransactions: true });
        assert.ok(latest.number! >= head);
        const byNumber = await pub.getBlock({ blockNumber: latest.number!, includeTransactions: false });
        const byHash = await pub.getBlock({ blockHash: latest.hash!, includeTransactions: true });
        assert.equal(byNumber.hash, latest.hash);
        assert.equal(byHash.number, latest.number);
        assert.deepEqual(
          byNumber.transactions,
          latest.transactions.map((t) => t.hash),
        );
        assert.equal(byHash.transactions[0]!.blockHash, latest.hash);
        const parent = await pub.getBlock({ blockNumber: latest.number! - 1n });
        assert.equal(latest.parentHash, parent.hash);
        assert.equal(typeof latest.baseFeePerGas, 'bigint');
        assert.equal(latest.nonce, '0x0000000000000000');
        assert.equal(latest.difficulty, 0n);
        const raw = await pub.request({
          method: 'eth_getBlockByNumber',
          params: [`0x${latest.number!.toString(16)}`, false],
        });
        assert.equal(computeBlockHash(raw as Record<string, unknown>), latest.hash);
        const genesis = await pub.getBlock({ blockTag: 'earliest' });
        assert.equal(genesis.number, 0n);
        assert.equal(await pub.getBlockTransactionCount({ blockHash: latest.hash! }), latest.transactions.length);
        assert.equal(await pub.getBlockTransactionCount({ blockNumber: latest.number! }), latest.transactions.length);
        const tx0 = await pub.getTransaction({ blockHash: latest.hash!, index: 0 });
        assert.equal(tx0.hash, latest.transactions[0]!.hash);
        const tx0n = await pub.getTransaction({ blockNumber: latest.number!, index: 0 });
        assert.equal(tx0n.hash, tx0.hash);
      });

      it('historical reads by block number and EIP-1898 {blockHash}/{blockNumber}', async () => {
        const before = await pub.getBalance({ address });
        const to = privateKeyToAccount(generatePrivateKey()).address;
        const hash = await wallet.sendTransaction({ to, value: 1n });
        const { blockHash } = await pub.waitForTransactionReceipt({ hash, timeout: 15_000 });
        const block = await pub.getBlock({ blockHash });
        const parentHash = block.parentHash;
        const after = await pub.getBalance({ address });
        assert.ok(after < before);
        const atParent = await pub.request({ method: 'eth_getBalance', params: [address, { blockHash: parentHash }] });
        const atBlock = await pub.request({
          method: 'eth_getBalance',
          params: [address, { blockHash, requireCanonical: true }],
        });
        const atNumber = await pub.request({
          method: 'eth_getBalance',
          params: [address, { blockNumber: `0x${(block.number! - 1n).toString(16)}` }],
        });
        assert.equal(BigInt(atParent), before);
        assert.equal(BigInt(atNumber), before);
        assert.equal(BigInt(atBlock), after);
        assert.equal(await pub.getBalance({ address, blockNumber: block.number! - 1n }), before);
        const codeAtGenesis = await pub.request({ method: 'eth_getCode', params: [contract, { blockNumber: '0x0' }] });
        assert.equal(codeAtGenesis, '0x');
        const storageNow = await pub.request({ method: 'eth_getStorageAt', params: [contract, '0x1', { blockHash }] });
        assert.equal(BigInt(storageNow), 42n);
      });
    });
  }
});
