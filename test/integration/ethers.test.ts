// ethers v6 against a real kestreld: transfers, deploy, calls, events, reverts, historical state, block hashes.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  ContractFactory,
  HDNodeWallet,
  Interface,
  JsonRpcProvider,
  Wallet,
  getCreateAddress,
  keccak256,
  toUtf8Bytes,
  type Contract,
  type TransactionReceipt,
} from 'ethers';
import { CHAIN_ID, DEV_ACCOUNTS, DEV_BALANCE, DEV_MNEMONIC, nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { EMPTY_TRIE_ROOT, computeBlockHash, computeReceiptsRoot, computeTransactionsRoot } from '../helpers/chain.ts';
import { type KestrelNode, printLogsOnFailure, startNode } from '../helpers/node.ts';
import { testContracts } from '../helpers/solc.ts';

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
// Error(string) selector + abi.encode("nope")
const NOPE_REVERT_DATA =
  '0x08c379a0' +
  '0000000000000000000000000000000000000000000000000000000000000020' +
  '0000000000000000000000000000000000000000000000000000000000000004' +
  '6e6f706500000000000000000000000000000000000000000000000000000000';

describe('ethers v6 against kestreld', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let provider: JsonRpcProvider;
  let alice: Wallet; // main sender (never the coinbase)
  let bob: Wallet;
  const { Store, Token } = testContracts();
  const storeIface = new Interface(Store.abi);
  let store: Contract;
  let storeAddress: string;

  before(async () => {
    node = await startNode();
    provider = new JsonRpcProvider(node.http, CHAIN_ID, {
      staticNetwork: true,
      pollingInterval: 100,
      cacheTimeout: -1,
    });
    const coinbase: string = await provider.send('eth_coinbase', []);
    const [a, b] = nonCoinbaseAccounts(coinbase);
    alice = new Wallet(a!.privateKey, provider);
    bob = new Wallet(b!.privateKey, provider);
  });

  afterEach(printLogsOnFailure(() => node));

  after(async () => {
    provider?.destroy();
    await node?.dispose();
  });

  it('dev accounts derive from the mnemonic and are funded at genesis', async () => {
    for (const acct of DEV_ACCOUNTS) {
      const w = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${acct.index}`);
      assert.equal(w.address, acct.address);
      assert.equal(await provider.getBalance(acct.address, 0), DEV_BALANCE, `balance of ${acct.address} at block 0`);
    }
  });

  it('reports chain id 9000 (eth_chainId and net_version)', async () => {
    assert.equal(await provider.send('eth_chainId', []), '0x2328');
    assert.equal(await provider.send('net_version', []), '9000');
    const fresh = new JsonRpcProvider(node.http);
    try {
      assert.equal((await fresh.getNetwork()).chainId, 9000n);
    } finally {
      fresh.destroy();
    }
  });

  it('transfers value with legacy, EIP-2930 and EIP-1559 txs: exact balances and receipt fields', async () => {
    for (const type of [0, 1, 2] as const) {
      const to = Wallet.createRandom().address;
      const value = 123_456_789n + BigInt(type);
      const fromBefore = await provider.getBalance(alice.address);
      const nonceBefore = await provider.getTransactionCount(alice.address);
      const tx = await alice.sendTransaction({ to, value, type });
      assert.equal(tx.type, type);
      const receipt = (await tx.wait())!;
      assert.equal(receipt.status, 1);
      assert.equal(receipt.hash, tx.hash);
      assert.equal(receipt.from, alice.address);
      assert.equal(receipt.to, to);
      assert.equal(receipt.contractAddress, null, 'contractAddress must be null for a plain transfer');
      assert.equal(receipt.gasUsed, 21_000n);
      assert.ok(receipt.cumulativeGasUsed >= receipt.gasUsed);
      assert.equal(receipt.index, 0, 'block-time 0: the tx is alone in its block');
      assert.equal(receipt.cumulativeGasUsed, receipt.gasUsed);
      assert.equal(receipt.logs.length, 0);
      assert.equal(receipt.type, type);
      assert.ok(receipt.gasPrice > 0n, 'effectiveGasPrice');
      const block = (await provider.getBlock(receipt.blockNumber))!;
      assert.equal(block.hash, receipt.blockHash);
      assert.ok(block.transactions.includes(tx.hash));
      if (type === 2) {
        assert.ok(block.baseFeePerGas !== null);
        assert.ok(receipt.gasPrice >= block.baseFeePerGas!, 'effectiveGasPrice >= baseFee');
      }
      assert.equal(await provider.getBalance(to), value);
      assert.equal(await provider.getBalance(alice.address), fromBefore - value - receipt.gasUsed * receipt.gasPrice);
      assert.equal(await provider.getTransactionCount(alice.address), nonceBefore + 1);

      const got = (await provider.getTransaction(tx.hash))!;
      assert.equal(got.hash, tx.hash);
      assert.equal(got.from, alice.address);
      assert.equal(got.to, to);
      assert.equal(got.value, value);
      assert.equal(got.nonce, nonceBefore);
      assert.equal(got.type, type);
      assert.equal(got.chainId, 9000n);
      assert.equal(got.blockHash, receipt.blockHash);
      assert.equal(got.blockNumber, receipt.blockNumber);
      assert.equal(got.index, 0);
    }
  });

  it('deploys Store: contractAddress, runtime code, constructor state', async () => {
    const nonce = await provider.getTransactionCount(alice.address);
    const factory = new ContractFactory(Store.abi, Store.bytecode, alice);
    const deployed = await factory.deploy(7n, 'hello');
    const receipt = (await deployed.deploymentTransaction()!.wait())!;
    assert.equal(receipt.status, 1);
    const expected = getCreateAddress({ from: alice.address, nonce });
    assert.equal(receipt.contractAddress, expected);
    assert.equal(receipt.to, null);
    assert.equal(await deployed.getAddress(), expected);
    assert.equal(await provider.getCode(expected), Store.deployedBytecode);
    assert.equal(await provider.getCode(expected, receipt.blockNumber - 1), '0x', 'no code before the deploy block');
    const tx = (await provider.getTransaction(receipt.hash))!;
    assert.equal(tx.to, null);
    storeAddress = expected;
    store = deployed as unknown as Contract;
  });

  it('calls views', async () => {
    assert.equal(await store.getFunction('get')(), 7n);
    assert.equal(await store.getFunction('value')(), 7n);
    assert.equal(await store.getFunction('label')(), 'hello');
    assert.equal(await store.getFunction('owner')(), alice.address);
    // storage slot 1 holds `value`
    assert.equal(BigInt(await provider.getStorage(storeAddress, 1)), 7n);
  });

  it('setter tx emits ValueSet, readable from the receipt logs', async () => {
    const tx = await store.getFunction('set')(42n);
    const receipt: TransactionReceipt = (await tx.wait())!;
    assert.equal(receipt.status, 1);
    assert.equal(receipt.logs.length, 1);
    const log = receipt.logs[0]!;
    assert.equal(log.address, storeAddress);
    assert.equal(log.topics[0], keccak256(toUtf8Bytes('ValueSet(address,uint256,string)')));
    assert.equal(log.blockHash, receipt.blockHash);
    assert.equal(log.blockNumber, receipt.blockNumber);
    assert.equal(log.transactionHash, receipt.hash);
    assert.equal(log.index, 0);
    const parsed = storeIface.parseLog(log)!;
    assert.equal(parsed.name, 'ValueSet');
    assert.equal(parsed.args.setter, alice.address);
    assert.equal(parsed.args.newValue, 42n);
    assert.equal(parsed.args.note, 'set');
    assert.notEqual(receipt.logsBloom, '0x' + '00'.repeat(256), 'bloom must include the log');
    assert.equal(await store.getFunction('get')(), 42n);
    assert.equal(await store.getFunction('get')({ blockTag: receipt.blockNumber - 1 }), 7n, 'historical eth_call');
  });

  it('revert reason surfaces from eth_call (reason string and custom error)', async () => {
    await assert.rejects(store.getFunction('fail')(), (e: any) => {
      assert.equal(e.code, 'CALL_EXCEPTION', e.message);
      assert.equal(e.reason, 'nope');
      assert.equal(e.data, NOPE_REVERT_DATA);
      return true;
    });
    await assert.rejects(store.getFunction('failCustom')({ from: alice.address }), (e: any) => {
      assert.equal(e.code, 'CALL_EXCEPTION', e.message);
      assert.equal(e.revert?.name, 'Unauthorized', e.message);
      assert.equal(e.revert.args[0], alice.address);
      assert.equal(e.revert.args[1], 42n);
      return true;
    });
  });

  it('revert reason surfaces from estimateGas', async () => {
    await assert.rejects(store.getFunction('setAndFail').estimateGas(5n), (e: any) => {
      assert.equal(e.code, 'CALL_EXCEPTION', e.message);
      assert.equal(e.reason, 'nope');
      assert.equal(e.data, NOPE_REVERT_DATA);
      return true;
    });
  });

  it('a reverted mined tx is included with status 0, consumes nonce and gas, leaves state unchanged', async () => {
    const nonce = await provider.getTransactionCount(alice.address);
    const balanceBefore = await provider.getBalance(alice.address);
    const tx = await store.getFunction('setAndFail')(5n, { gasLimit: 200_000n });
    await assert.rejects(tx.wait(), (e: any) => e.code === 'CALL_EXCEPTION' && e.receipt?.status === 0);
    const receipt = (await provider.getTransactionReceipt(tx.hash))!;
    assert.equal(receipt.status, 0);
    assert.ok(receipt.gasUsed > 21_000n && receipt.gasUsed < 200_000n, `gasUsed ${receipt.gasUsed}`);
    const block = (await provider.getBlock(receipt.blockNumber))!;
    assert.ok(block.transactions.includes(tx.hash), 'reverted tx is in its block');
    assert.equal(await provider.getTransactionCount(alice.address), nonce + 1);
    assert.equal(await provider.getBalance(alice.address), balanceBefore - receipt.gasUsed * receipt.gasPrice);
    assert.equal(await store.getFunction('get')(), 42n);
    assert.equal(receipt.logs.length, 0);
  });

  it('payable function: value lands in the contract and Paid is logged', async () => {
    const tx = await store.connect(bob).getFunction('pay')({ value: 1000n });
    const receipt: TransactionReceipt = (await tx.wait())!;
    assert.equal(receipt.status, 1);
    const parsed = storeIface.parseLog(receipt.logs[0]!)!;
    assert.equal(parsed.name, 'Paid');
    assert.equal(parsed.args.from, bob.address);
    assert.equal(parsed.args.amount, 1000n);
    assert.equal(await provider.getBalance(storeAddress), 1000n);
    assert.equal(await store.getFunction('balanceOfThis')(), 1000n);
    assert.equal(await store.getFunction('deposits')(), 1000n);
  });

  it('ERC20: deploy mints (Transfer from 0x0), transfer emits Transfer, balances move', async () => {
    const supply = 1_000_000n * 10n ** 18n;
    const token = (await new ContractFactory(Token.abi, Token.bytecode, alice).deploy(
      'Kestrel',
      'KST',
      supply,
    )) as unknown as Contract;
    const deployReceipt = (await token.deploymentTransaction()!.wait())!;
    const tokenIface = new Interface(Token.abi);
    const mint = tokenIface.parseLog(deployReceipt.logs[0]!)!;
    assert.equal(mint.name, 'Transfer');
    assert.equal(mint.args.from, '0x0000000000000000000000000000000000000000');
    assert.equal(mint.args.to, alice.address);
    assert.equal(mint.args.value, supply);
    const tx = await token.getFunction('transfer')(bob.address, 250n);
    const receipt: TransactionReceipt = (await tx.wait())!;
    const ev = tokenIface.parseLog(receipt.logs[0]!)!;
    assert.equal(ev.name, 'Transfer');
    assert.equal(ev.args.from, alice.address);
    assert.equal(ev.args.to, bob.address);
    assert.equal(ev.args.value, 250n);
    assert.equal(await token.getFunction('balanceOf')(bob.address), 250n);
    assert.equal(await token.getFunction('balanceOf')(alice.address), supply - 250n);
    await assert.rejects(token.connect(bob).getFunction('transfer')(alice.address, 10_000n), (e: any) => {
      assert.equal(e.reason, 'ERC20: transfer amount exceeds balance', e.message);
      return true;
    });
  });

  it('historical balances by block number, by block hash (EIP-1898 object and bare hash) and tags', async () => {
    const to = Wallet.createRandom().address;
    const before = await provider.getBalance(alice.address);
    const tx = await alice.sendTransaction({ to, value: 10n ** 15n });
    const receipt = (await tx.wait())!;
    const after = await provider.getBalance(alice.address);
    assert.ok(after < before);
    const n = receipt.blockNumber;
    const block = (await provider.getBlock(n))!;
    const parent = (await provider.getBlock(n - 1))!;
    assert.equal(block.parentHash, parent.hash);

    assert.equal(await provider.getBalance(alice.address, n - 1), before);
    assert.equal(await provider.getBalance(alice.address, n), after);
    assert.equal(await provider.getBalance(to, n - 1), 0n);
    assert.equal(await provider.getBalance(alice.address, 0), DEV_BALANCE);
    assert.equal(BigInt(await provider.send('eth_getBalance', [alice.address, { blockHash: parent.hash }])), before);
    assert.equal(BigInt(await provider.send('eth_getBalance', [alice.address, { blockHash: block.hash }])), after);
    assert.equal(
      BigInt(await provider.send('eth_getBalance', [alice.address, { blockHash: block.hash, requireCanonical: true }])),
      after,
    );
    assert.equal(BigInt(await provider.send('eth_getBalance', [alice.address, { blockNumber: hex(n - 1) }])), before);
    // ethers passes a 32-byte block tag through as a bare hash string (geth accepts it).
    assert.equal(await provider.getBalance(alice.address, parent.hash!), before);
    assert.equal(await provider.getBalance(alice.address, 'latest'), after);
    assert.equal(await provider.getBalance(alice.address, 'earliest'), DEV_BALANCE);
    assert.equal(await provider.getTransactionCount(alice.address, n - 1), tx.nonce);
    assert.equal(await provider.getTransactionCount(alice.address, 'pending'), tx.nonce + 1);
  });

  it('every block hash recomputes from its header; parentHash links; tx and receipt roots recompute', async () => {
    const head = await provider.getBlockNumber();
    assert.ok(head >= 10, `expected at least 10 blocks by now, head is ${head}`);
    let prevHash: string | undefined;
    for (let n = 0; n <= head; n++) {
      const raw = await provider.send('eth_getBlockByNumber', [hex(n), true]);
      assert.equal(computeBlockHash(raw), raw.hash, `block ${n}: keccak(rlp(header)) != hash`);
      if (n === 0) {
        assert.equal(raw.transactions.length, 0);
        assert.equal(raw.transactionsRoot, EMPTY_TRIE_ROOT);
        assert.equal(raw.receiptsRoot, EMPTY_TRIE_ROOT);
      } else {
        assert.equal(raw.parentHash, prevHash, `block ${n} parentHash`);
        // Block 1 is sealed empty at genesis time (as CometBFT's first block); after it, no empty blocks.
        if (n > 1) assert.ok(raw.transactions.length > 0, 'block-time 0 makes no empty blocks');
      }
      assert.equal(computeTransactionsRoot(raw), raw.transactionsRoot, `block ${n} transactionsRoot`);
      const receipts = await Promise.all(
        raw.transactions.map((t: any) => provider.send('eth_getTransactionReceipt', [t.hash])),
      );
      assert.equal(computeReceiptsRoot(receipts), raw.receiptsRoot, `block ${n} receiptsRoot`);
      // ethers' own Block parser accepts the shape and agrees.
      const b = (await provider.getBlock(n))!;
      assert.equal(b.hash, raw.hash);
      assert.equal(b.number, n);
      assert.equal(b.nonce, '0x0000000000000000');
      assert.equal(b.difficulty, 0n);
      const byHash = (await provider.getBlock(raw.hash))!;
      assert.equal(byHash.number, n);
      prevHash = raw.hash;
    }
  });
});
