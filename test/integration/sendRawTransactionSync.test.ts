// eth_sendRawTransactionSync (EIP-7966) against a real `kestreld start --dev`, beside Anvil 1.7.1 (chain id 9000 so
// one signed tx shape fits both): the receipt comes back with the call, the same receipt eth_getTransactionReceipt
// answers; a tx that is not mined in time gets geth's code-4 error with the hash as data; bad input is refused.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, sleep, startNode } from '../helpers/node.ts';
import { signTx } from '../helpers/tx.ts';

const key = DEV_ACCOUNTS[5]!.privateKey;
const from = DEV_ACCOUNTS[5]!.address.toLowerCase();
const to = DEV_ACCOUNTS[6]!.address;

describe('eth_sendRawTransactionSync', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let anvil: RunningNode;
  let url: string;

  before(async () => {
    [node, anvil] = await Promise.all([startNode(), startAnvil(['--chain-id', '9000'])]);
    url = node.http;
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await Promise.all([node?.dispose(), anvil?.stop()]);
  });

  it('returns the committed receipt, as Anvil does', async () => {
    for (const u of [url, anvil.url]) {
      const { raw, hash } = await signTx(u, key, { to, value: 7n });
      const receipt = await rpcResult(u, 'eth_sendRawTransactionSync', [raw]);
      assert.equal(receipt.transactionHash, hash, u);
      assert.equal(receipt.status, '0x1', u);
      assert.equal(receipt.from, from, u);
      assert.equal(receipt.gasUsed, '0x5208', u);
      assert.deepEqual(receipt, await rpcResult(u, 'eth_getTransactionReceipt', [hash]), u);
      assert.equal(await rpcResult(u, 'eth_blockNumber'), receipt.blockNumber, u);
    }
  });

  it('takes a timeout in milliseconds as hex or a JSON integer', async () => {
    for (const timeout of ['0x3e8', 1000, 0]) {
      const { raw, hash } = await signTx(url, key, { to, value: 1n });
      const receipt = await rpcResult(url, 'eth_sendRawTransactionSync', [raw, timeout]);
      assert.equal(receipt.transactionHash, hash);
    }
  });

  it('a tx not mined in time: code 4 with the hash as data; the receipt comes once a block holds it', async () => {
    assert.equal(await rpcResult(url, 'evm_setAutomine', [false]), true);
    try {
      const { raw, hash } = await signTx(url, key, { to, value: 2n });
      const started = Date.now();
      const res = await rpc(url, 'eth_sendRawTransactionSync', [raw, '0x1f4']);
      const waited = Date.now() - started;
      assert.equal(res.error?.code, 4);
      assert.equal(
        res.error?.message,
        "The transaction was added to the transaction pool but wasn't processed in 500ms.",
      );
      assert.equal(res.error?.data, hash);
      assert.ok(waited >= 450 && waited < 5_000, `waited ${waited} ms`);
      assert.equal(await rpcResult(url, 'eth_getTransactionReceipt', [hash]), null, 'still pending');
      // A wait that a block ends early: evm_mine while the call waits.
      const next = await signTx(url, key, { to, value: 3n });
      const waiting = rpc(url, 'eth_sendRawTransactionSync', [next.raw, 10_000]);
      await sleep(200);
      await rpcResult(url, 'evm_mine');
      const got = await waiting;
      assert.equal(got.result && (got.result as { transactionHash: string }).transactionHash, next.hash);
      assert.equal((await rpcResult(url, 'eth_getTransactionReceipt', [hash])).status, '0x1');
    } finally {
      await rpcResult(url, 'evm_setAutomine', [true]);
    }
  });

  it('refuses bad input with a clear error, and an admission error as eth_sendRawTransaction does', async () => {
    const missing = await rpc(url, 'eth_sendRawTransactionSync', []);
    assert.equal(missing.error?.code, -32602);
    assert.match(missing.error!.message, /missing value for required argument 0/);
    const junk = await rpc(url, 'eth_sendRawTransactionSync', ['0x01']);
    assert.ok(junk.error, 'undecodable tx refused');
    const { raw } = await signTx(url, key, { to, value: 1n });
    for (const timeout of [-1, 1.5, 'abc', '0x', {}]) {
      const res = await rpc(url, 'eth_sendRawTransactionSync', [raw, timeout]);
      assert.equal(res.error?.code, -32602, JSON.stringify(timeout));
    }
    await rpcResult(url, 'eth_sendRawTransactionSync', [raw]);
    const again = await rpc(url, 'eth_sendRawTransactionSync', [raw]);
    assert.equal(again.error?.code, -32000);
    assert.equal(again.error?.message, 'nonce too low');
    // Anvil words the replay the same (under its own code).
    const onAnvil = await signTx(anvil.url, key, { to, value: 1n });
    await rpcResult(anvil.url, 'eth_sendRawTransactionSync', [onAnvil.raw]);
    assert.equal((await rpc(anvil.url, 'eth_sendRawTransactionSync', [onAnvil.raw])).error?.message, 'nonce too low');
  });
});
