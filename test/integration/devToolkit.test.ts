// The dev toolkit (evm_*, anvil_*, hardhat_*) against a real `kestreld start --dev`: mining on demand, the clock,
// state edits, impersonation, dropping txs, and evm_snapshot / evm_revert rewinding the chain durably (across a
// restart, and across a kill -9 in the middle of a revert).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { deployEmitter, emitManyData } from '../helpers/emitter.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, sleep, startNode } from '../helpers/node.ts';
import { sendTx, signTx } from '../helpers/tx.ts';

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const num = (h: string) => Number(BigInt(h));

describe('dev toolkit', { timeout: 240_000 }, () => {
  let node: KestrelNode;
  let url: string;
  const key = DEV_ACCOUNTS[3]!.privateKey;
  const from = DEV_ACCOUNTS[3]!.address;
  const to = DEV_ACCOUNTS[4]!.address;
  const call = <T = any>(method: string, params: unknown[] = []) => rpcResult<T>(url, method, params);
  const head = async () => num(await call('eth_blockNumber'));
  const latest = () => call('eth_getBlockByNumber', ['latest', false]);

  before(async () => {
    node = await startNode();
    url = node.http;
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('names itself Anvil-compatible and reports automine', async () => {
    assert.match(await call('web3_clientVersion'), /^anvil-compatible kestrel\//);
    assert.equal(await call('hardhat_getAutomine'), true);
    assert.equal(await call('anvil_getAutomine'), true);
    const info = await call('anvil_nodeInfo');
    assert.equal(info.currentBlockNumber, hex(await head()));
    const meta = await call('hardhat_metadata');
    assert.equal(meta.chainId, 9000);
  });

  it('evm_setAutomine(false) leaves sends pending until evm_mine', async () => {
    assert.equal(await call('evm_setAutomine', [false]), true);
    assert.equal(await call('hardhat_getAutomine'), false);
    const before = await head();
    const { hash, raw } = await signTx(url, key, { to, value: 1n });
    assert.equal(await call('eth_sendRawTransaction', [raw]), hash);
    await sleep(100);
    assert.equal(await call('eth_getTransactionReceipt', [hash]), null);
    assert.equal(await head(), before);
    assert.equal(await call('evm_mine'), '0x0');
    const r = await call('eth_getTransactionReceipt', [hash]);
    assert.equal(num(r.blockNumber), before + 1);
    assert.equal(await call('evm_setAutomine', [true]), true);
  });

  it('evm_mine with a timestamp, with {blocks, timestamp}, hardhat_mine with an interval', async () => {
    const t0 = num((await latest()).timestamp);
    await call('evm_mine', [t0 + 100]);
    assert.equal(num((await latest()).timestamp), t0 + 100);
    const h = await head();
    await call('evm_mine', [{ blocks: 3, timestamp: hex(t0 + 200) }]);
    assert.equal(await head(), h + 3);
    const first = await call('eth_getBlockByNumber', [hex(h + 1), false]);
    assert.equal(num(first.timestamp), t0 + 200);
    assert.equal(await call('hardhat_mine', ['0x5', '0x10']), true);
    assert.equal(await head(), h + 8);
    const a = await call('eth_getBlockByNumber', [hex(h + 7), false]);
    const b = await call('eth_getBlockByNumber', [hex(h + 8), false]);
    assert.equal(num(b.timestamp) - num(a.timestamp), 16);
    assert.equal(await call('anvil_mine', ['0x2']), null);
    assert.equal(await head(), h + 10);
    const err = (await rpc(url, 'evm_mine', [t0])).error;
    assert.equal(err?.code, -32602);
  });

  it('evm_increaseTime and evm_setNextBlockTimestamp move the clock of later blocks', async () => {
    const t0 = num((await latest()).timestamp);
    const offset = Number(await call('evm_increaseTime', [3600]));
    assert.ok(offset >= 3600);
    await call('evm_mine');
    assert.ok(num((await latest()).timestamp) >= t0 + 3600);
    const target = num((await latest()).timestamp) + 1000;
    await call('evm_setNextBlockTimestamp', [hex(target)]);
    await sendTx(url, key, { to, value: 1n });
    assert.equal(num((await latest()).timestamp), target);
    const low = await rpc(url, 'evm_setNextBlockTimestamp', [target - 1]);
    assert.equal(low.error?.code, -32602);
    assert.equal(low.error!.message, `Timestamp error: ${target - 1} is lower than previous block's timestamp`);
  });

  it('after quick blocks ran ahead of the wall clock, evm_increaseTime(3600) then evm_mine is 3600 s after the last block', async () => {
    for (let i = 0; i < 60; i++) await call('evm_mine');
    const last = num((await latest()).timestamp);
    assert.ok(last > Math.floor(Date.now() / 1000) + 10, 'the chain runs ahead of the wall clock');
    const wall = Math.floor(Date.now() / 1000);
    await call('evm_increaseTime', [3600]);
    await call('evm_mine');
    // Wall seconds that passed meanwhile count too, as on Hardhat: 3600 when none did.
    const ticked = Math.floor(Date.now() / 1000) - wall;
    const delta = num((await latest()).timestamp) - last;
    assert.ok(delta >= 3600 && delta <= 3600 + ticked, `+${delta} s (${ticked} wall seconds passed)`);
  });

  it('setBalance, setNonce, setCode and setStorageAt show at latest (each in a block of its own)', async () => {
    const acct = '0x' + '7e'.repeat(20);
    const h = await head();
    assert.equal(await call('hardhat_setBalance', [acct, '0x0de0b6b3a7640000']), true);
    assert.equal(await call('eth_getBalance', [acct, 'latest']), '0xde0b6b3a7640000');
    assert.equal(await call('eth_getBalance', [acct, hex(h)]), '0x0');
    assert.equal(await call('anvil_setNonce', [acct, '0x7']), null);
    assert.equal(await call('eth_getTransactionCount', [acct, 'latest']), '0x7');
    await call('hardhat_setCode', [acct, '0x6001600055']);
    assert.equal(await call('eth_getCode', [acct, 'latest']), '0x6001600055');
    await call('anvil_setStorageAt', [acct, '0x0', '0x' + '00'.repeat(31) + '2a']);
    assert.equal(await call('eth_getStorageAt', [acct, '0x0', 'latest']), '0x' + '00'.repeat(31) + '2a');
    assert.equal(
      await call('eth_getBalance', [acct, 'latest']),
      '0xde0b6b3a7640000',
      'the balance survives the later edits',
    );
    assert.equal(await head(), h + 4);
  });

  it('impersonateAccount lets eth_sendTransaction send from an address without its key', async () => {
    const who = '0x' + '5a'.repeat(20);
    await call('anvil_setBalance', [who, hex(10n ** 18n)]);
    const refused = await rpc(url, 'eth_sendTransaction', [{ from: who, to, value: '0x1' }]);
    assert.ok(refused.error, 'refused before impersonation');
    assert.equal(await call('hardhat_impersonateAccount', [who]), true);
    const hash = await call('eth_sendTransaction', [{ from: who, to, value: '0x5' }]);
    const r = await call('eth_getTransactionReceipt', [hash]);
    assert.equal(r.status, '0x1');
    assert.equal(r.from, who);
    const tx = await call('eth_getTransactionByHash', [hash]);
    assert.equal(tx.from, who);
    assert.equal(await call('hardhat_stopImpersonatingAccount', [who]), true);
    assert.ok((await rpc(url, 'eth_sendTransaction', [{ from: who, to, value: '0x1' }])).error);
  });

  it('dropTransaction removes a pooled tx', async () => {
    await call('evm_setAutomine', [false]);
    const { hash, raw } = await signTx(url, key, { to, value: 1n });
    await call('eth_sendRawTransaction', [raw]);
    assert.equal(await call('hardhat_dropTransaction', [hash]), true);
    assert.equal(await call('hardhat_dropTransaction', [hash]), false);
    assert.equal(await call('eth_getTransactionByHash', [hash]), null);
    await call('evm_setAutomine', [true]);
  });

  it('evm_revert rewinds blocks, receipts, logs and filters, restores the pool, and holds across a restart', async () => {
    const emitter = await deployEmitter(url, key);
    // A tx behind a nonce gap sits in the pool at the snapshot; one sent after it is forgotten by the revert.
    const nonce = num(await call('eth_getTransactionCount', [from, 'pending']));
    const gapped = await signTx(url, key, { to, value: 1n, nonce: nonce + 20 });
    await call('eth_sendRawTransaction', [gapped.raw]);
    const snapHead = await head();
    const snapBlock = await latest();
    const id = await call('evm_snapshot');
    assert.match(id, /^0x[0-9a-f]+$/);
    const later = await signTx(url, key, { to, value: 2n, nonce: nonce + 30 });
    await call('eth_sendRawTransaction', [later.raw]);
    const blockFilter = await call('eth_newBlockFilter');
    const hashes: string[] = [];
    for (let i = 0; i < 10; i++)
      hashes.push(
        (await sendTx(url, key, { to: emitter, data: emitManyData(2), gas: 200_000n, nonce: nonce + i })).hash,
      );
    assert.equal(await head(), snapHead + 10);
    const logsBefore = await call<any[]>('eth_getLogs', [
      { fromBlock: hex(snapHead + 1), toBlock: 'latest', address: emitter },
    ]);
    assert.equal(logsBefore.length, 20);
    const logFilter = await call('eth_newFilter', [{ fromBlock: 'latest', address: emitter }]);

    assert.equal(await call('evm_revert', [id]), true);
    assert.equal(await call('evm_revert', [id]), false, 'a snapshot is used up by its revert');
    assert.equal(await head(), snapHead);
    assert.equal((await latest()).hash, snapBlock.hash);
    for (const h of hashes) assert.equal(await call('eth_getTransactionReceipt', [h]), null);
    assert.equal(await call('eth_getBlockByNumber', [hex(snapHead + 1), false]), null);
    assert.deepEqual(
      await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: emitter, topics: [null] }]),
      [],
    );
    assert.deepEqual(await call('eth_getFilterChanges', [blockFilter]), []);
    assert.deepEqual(await call('eth_getFilterChanges', [logFilter]), []);
    assert.ok(await call('eth_getTransactionByHash', [gapped.hash]), 'the pool of the snapshot is back');
    assert.equal(await call('eth_getTransactionByHash', [later.hash]), null, 'a tx pooled after the snapshot is gone');

    // The chain goes on from the snapshot: new blocks, new logs, indexed at the reused heights.
    const again = await sendTx(url, key, { to: emitter, data: emitManyData(1), gas: 200_000n, nonce });
    assert.equal(num(again.receipt.blockNumber), snapHead + 1);
    const logsAfter = await call<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: emitter }]);
    assert.equal(logsAfter.length, 1);
    assert.equal(logsAfter[0].transactionHash, again.hash);

    node = await node.restart();
    url = node.http;
    assert.equal(await head(), snapHead + 1);
    for (const h of hashes) assert.equal(await call('eth_getTransactionReceipt', [h]), null);
    assert.equal(
      (await call<any[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: emitter }])).length,
      1,
    );
    assert.equal((await call('eth_getTransactionReceipt', [again.hash])).status, '0x1');
  });

  it('a kill -9 in the middle of a revert leaves the old head or the snapshot head', async () => {
    for (const delayMs of [0, 3, 10, 30]) {
      const snapHead = await head();
      const id = await call('evm_snapshot');
      await call('hardhat_mine', ['0x40']);
      const oldHead = await head();
      const oldHash = (await latest()).hash;
      const pending = rpc(url, 'evm_revert', [id], { timeoutMs: 5_000 }).catch(() => undefined);
      await sleep(delayMs);
      await node.stop('SIGKILL');
      await pending;
      node = await node.restart();
      url = node.http;
      const now = await head();
      console.log(`# kill -9 ${delayMs} ms into a revert of 64 blocks: head ${now === oldHead ? 'old' : 'snapshot'}`);
      assert.ok(
        now === oldHead || now === snapHead,
        `head ${now} after a kill during a revert (old ${oldHead}, snapshot ${snapHead})`,
      );
      if (now === oldHead) assert.equal((await latest()).hash, oldHash);
      const top = await call('eth_getBlockByNumber', [hex(now + 1), false]);
      assert.equal(top, null, 'nothing above the head');
      // The chain extends normally from whichever head survived.
      const r = await sendTx(url, key, { to, value: 1n });
      assert.equal(num(r.receipt.blockNumber), now + 1);
    }
  });
});
