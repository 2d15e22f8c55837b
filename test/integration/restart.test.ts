// Durability: stop the node (SIGTERM, then kill -9) and start it again on the same home; the chain must be the
// same — head, block hashes, receipts, balances, code and storage — and must keep growing from there.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface } from 'ethers';
import { nonCoinbaseAccounts, type DevAccount } from '../helpers/accounts.ts';
import { computeBlockHash } from '../helpers/chain.ts';
import {
  type KestrelNode,
  printLogsOnFailure,
  rpc,
  rpcResult,
  sleep,
  startNode,
  waitForReceipt,
} from '../helpers/node.ts';
import { testContracts } from '../helpers/solc.ts';
import { sendTx, signTx } from '../helpers/tx.ts';

const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const RECIPIENT = '0x00000000000000000000000000000000000a11ce';

interface Snapshot {
  head: number;
  hashes: string[];
  receipts: Map<string, any>;
  balances: Map<string, string>; // address → balance at `head`
  code: string;
  storage: string;
}

async function snapshot(url: string, addresses: string[], contract: string, txHashes: string[]): Promise<Snapshot> {
  const head = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));
  const hashes: string[] = [];
  for (let n = 0; n <= head; n++)
    hashes.push((await rpcResult<any>(url, 'eth_getBlockByNumber', [hex(n), false])).hash);
  const receipts = new Map<string, any>();
  for (const h of txHashes) receipts.set(h, await rpcResult(url, 'eth_getTransactionReceipt', [h]));
  const balances = new Map<string, string>();
  for (const a of addresses) balances.set(a, await rpcResult<string>(url, 'eth_getBalance', [a, hex(head)]));
  const code = await rpcResult<string>(url, 'eth_getCode', [contract, hex(head)]);
  const storage = await rpcResult<string>(url, 'eth_getStorageAt', [contract, '0x1', hex(head)]);
  return { head, hashes, receipts, balances, code, storage };
}

/** Every stored block recomputes to its hash and links to its parent; receipts exist for every tx. */
async function assertChainConsistent(url: string): Promise<number> {
  const head = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));
  let prev: string | undefined;
  for (let n = 0; n <= head; n++) {
    const b = await rpcResult<any>(url, 'eth_getBlockByNumber', [hex(n), false]);
    assert.ok(b, `block ${n} exists (head ${head})`);
    assert.equal(computeBlockHash(b), b.hash, `block ${n} hash recomputes`);
    if (prev !== undefined) assert.equal(b.parentHash, prev, `block ${n} links to its parent`);
    const receipts = await rpcResult<any[]>(url, 'eth_getBlockReceipts', [hex(n)]);
    assert.equal(receipts.length, b.transactions.length, `block ${n}: one receipt per tx`);
    receipts.forEach((r, i) => assert.equal(r.transactionHash, b.transactions[i], `block ${n} receipt ${i}`));
    prev = b.hash;
  }
  return head;
}

function assertSame(before: Snapshot, after: Snapshot, what: string): void {
  assert.ok(after.head >= before.head, `${what}: head went back from ${before.head} to ${after.head}`);
  assert.deepEqual(after.hashes.slice(0, before.head + 1), before.hashes, `${what}: block hashes`);
  for (const [h, r] of before.receipts) assert.deepEqual(after.receipts.get(h), r, `${what}: receipt of ${h}`);
  assert.deepEqual(after.balances, before.balances, `${what}: balances at block ${before.head}`);
  assert.equal(after.code, before.code, `${what}: code`);
  assert.equal(after.storage, before.storage, `${what}: storage`);
}

describe('restart keeps the chain', { timeout: 150_000 }, () => {
  let node: KestrelNode | undefined;
  let first: KestrelNode | undefined;
  let sender: DevAccount;
  let contract: string;
  const txHashes: string[] = [];
  const { Store } = testContracts();
  const iface = new Interface(Store.abi);
  const addresses = () => [sender.address, RECIPIENT, contract];

  before(async () => {
    first = node = await startNode();
    const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
    sender = nonCoinbaseAccounts(coinbase)[0]!;
    txHashes.push((await sendTx(node.http, sender.privateKey, { to: RECIPIENT, value: 10n ** 18n })).hash);
    const deploy = await sendTx(node.http, sender.privateKey, {
      to: null,
      data: Store.bytecode + iface.encodeDeploy([1n, 'durable']).slice(2),
      gas: 2_000_000n,
    });
    contract = deploy.receipt.contractAddress;
    txHashes.push(deploy.hash);
    txHashes.push(
      (
        await sendTx(node.http, sender.privateKey, {
          to: contract,
          data: iface.encodeFunctionData('set', [77n]),
          gas: 200_000n,
        })
      ).hash,
    );
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
    if (first !== node) await first?.dispose();
  });

  it('SIGTERM exits 0; restart has the same head, hashes, receipts, balances, code and storage', async () => {
    const before = await snapshot(node!.http, addresses(), contract, txHashes);
    assert.equal(before.head, 4, 'block 1 (sealed at genesis time) and three blocks of txs');
    const old = node!;
    const code = await old.stop('SIGTERM');
    assert.equal(code, 0, 'graceful stop exits 0');
    node = await old.restart();
    const after = await snapshot(node.http, addresses(), contract, txHashes);
    assert.equal(after.head, before.head, 'same head after a graceful restart');
    assertSame(before, after, 'after SIGTERM restart');
    assert.equal(BigInt(after.storage), 77n);
    assert.equal(
      await rpcResult(node.http, 'eth_getTransactionCount', [sender.address, 'latest']),
      await rpcResult(node.http, 'eth_getTransactionCount', [sender.address, 'pending']),
    );
  });

  it('the restarted chain keeps growing from the old head', async () => {
    const head = Number(BigInt(await rpcResult<string>(node!.http, 'eth_blockNumber')));
    const old = await rpcResult<any>(node!.http, 'eth_getBlockByNumber', [hex(head), false]);
    const { receipt, hash } = await sendTx(node!.http, sender.privateKey, { to: RECIPIENT, value: 5n });
    txHashes.push(hash);
    assert.equal(Number(BigInt(receipt.blockNumber)), head + 1);
    const b = await rpcResult<any>(node!.http, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
    assert.equal(b.parentHash, old.hash);
    await assertChainConsistent(node!.http);
  });

  it('kill -9 after receipts: restart keeps everything that had a receipt', async () => {
    // A burst of txs; record what has a receipt, then kill -9 without warning.
    const url = node!.http;
    const start = Number(BigInt(await rpcResult<string>(url, 'eth_getTransactionCount', [sender.address, 'latest'])));
    const burst: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { raw, hash } = await signTx(url, sender.privateKey, {
        to: RECIPIENT,
        value: BigInt(100 + i),
        nonce: start + i,
      });
      const r = await rpc(url, 'eth_sendRawTransaction', [raw]);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      burst.push(hash);
    }
    await waitForReceipt(url, burst[burst.length - 1]!);
    txHashes.push(...burst);
    const before = await snapshot(url, addresses(), contract, txHashes);
    const old = node!;
    const code = await old.stop('SIGKILL');
    assert.equal(code, null, 'killed by signal');
    node = await old.restart();
    const after = await snapshot(node.http, addresses(), contract, txHashes);
    assertSame(before, after, 'after kill -9 restart');
    await assertChainConsistent(node.http);
    // and it keeps working
    const { receipt } = await sendTx(node.http, sender.privateKey, { to: RECIPIENT, value: 6n });
    assert.equal(receipt.status, '0x1');
  });

  it('kill -9 in the middle of block production leaves a consistent chain', async () => {
    const url = node!.http;
    const start = Number(BigInt(await rpcResult<string>(url, 'eth_getTransactionCount', [sender.address, 'latest'])));
    const sent: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { raw, hash } = await signTx(url, sender.privateKey, { to: RECIPIENT, value: 1n, nonce: start + i });
      const r = await rpc(url, 'eth_sendRawTransaction', [raw]);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      sent.push(hash);
    }
    await sleep(30);
    // Whatever has a receipt right before the kill must survive it.
    const mined = new Map<string, any>();
    for (const h of sent) {
      const r = await rpcResult(url, 'eth_getTransactionReceipt', [h]);
      if (r) mined.set(h, r);
    }
    const old = node!;
    assert.equal(await old.stop('SIGKILL'), null);
    node = await old.restart();
    for (const [h, r] of mined)
      assert.deepEqual(await rpcResult(node.http, 'eth_getTransactionReceipt', [h]), r, `receipt of ${h}`);
    await assertChainConsistent(node.http);
    // Nonces stay contiguous: the next tx from the sender is accepted and mined.
    const next = Number(
      BigInt(await rpcResult<string>(node.http, 'eth_getTransactionCount', [sender.address, 'pending'])),
    );
    assert.ok(next >= start + mined.size, `pending nonce ${next} < ${start} + ${mined.size} mined`);
    const { receipt } = await sendTx(node.http, sender.privateKey, { to: RECIPIENT, value: 7n, nonce: next });
    assert.equal(receipt.status, '0x1');
  });
});
