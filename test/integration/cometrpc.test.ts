// The CometBFT-compatible RPC against a real kestreld: cosmjs (Comet38Client + QueryClient with the bank
// extension) unchanged, JSON-RPC POST and URI GET forms, broadcast_tx_sync, and CometBFT's error shapes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { QueryClient, setupBankExtension } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { bech32 } from 'bech32';
import secp256k1 from 'secp256k1';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode, waitForReceipt } from '../helpers/node.ts';
import { signTx } from '../helpers/tx.ts';

const acc = (hex: string) => bech32.encode('kestrel', bech32.toWords(Buffer.from(hex.slice(2), 'hex')));
const [alice, bob] = DEV_ACCOUNTS as [(typeof DEV_ACCOUNTS)[0], (typeof DEV_ACCOUNTS)[0]];

async function post(url: string, method: string, params: unknown): Promise<any> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return r.json();
}

describe('CometBFT-compatible RPC', { timeout: 90_000 }, () => {
  let node: KestrelNode;
  let comet: Comet38Client;
  afterEach(printLogsOnFailure(() => node));
  before(async () => {
    node = await startNode();
    comet = await Comet38Client.connect(node.comet);
    // cosmjs treats a query height of 0 as missing ("No query height returned"), so leave genesis first.
    const { raw } = await signTx(node.http, bob.privateKey, { to: alice.address, value: 1n });
    const { hash } = { hash: await rpcResult(node.http, 'eth_sendRawTransaction', [raw]) };
    await waitForReceipt(node.http, hash);
  });
  after(async () => {
    comet?.disconnect();
    await node?.dispose();
  });

  it('cosmjs QueryClient + bank extension reads the same balances as eth_getBalance', async () => {
    const q = QueryClient.withExtensions(comet, setupBankExtension);
    const all = await q.bank.allBalances(acc(alice.address));
    const eth = BigInt(await rpcResult(node.http, 'eth_getBalance', [alice.address, 'latest']));
    assert.deepEqual(
      all.map((c) => c.denom),
      ['akestrel', 'stake'],
    );
    assert.equal(BigInt(all[0]!.amount), eth);
    assert.deepEqual(await q.bank.balance(acc(alice.address), 'stake'), {
      denom: 'stake',
      amount: (10n ** 24n).toString(),
    });
    assert.deepEqual(await q.bank.supplyOf('stake'), { denom: 'stake', amount: (10n ** 25n).toString() });
    const supply = await q.bank.totalSupply();
    assert.deepEqual(
      supply.supply.map((c) => c.denom),
      ['akestrel', 'stake'],
    );
    await assert.rejects(
      q.bank.allBalances('kestrel1bad'),
      /Query failed with \(18\): rpc error: code = InvalidArgument desc = invalid address/,
    );
  });

  it('broadcast_tx_sync admits a raw Ethereum tx; status, block and abci_info decode in cosmjs', async () => {
    const { raw, hash } = await signTx(node.http, alice.privateKey, { to: bob.address, value: 1n });
    const tx = Buffer.from(raw.slice(2), 'hex');
    const res = await comet.broadcastTxSync({ tx });
    assert.equal(res.code, 0, res.log);
    assert.equal(Buffer.from(res.hash).toString('hex'), createHash('sha256').update(tx).digest('hex'));
    const receipt = await waitForReceipt(node.http, hash);
    // A tx with a nonce gap stays queued in the pool: sending it twice hits the cache.
    const gap = await signTx(node.http, bob.privateKey, { to: alice.address, value: 1n, nonce: 50 });
    const gapTx = Buffer.from(gap.raw.slice(2), 'hex').toString('base64');
    assert.equal((await post(node.comet, 'broadcast_tx_sync', { tx: gapTx })).result.code, 0);
    const dup = await post(node.comet, 'broadcast_tx_sync', { tx: gapTx });
    assert.deepEqual(dup.error, { code: -32603, message: 'Internal error', data: 'tx already exists in cache' });
    const status = await comet.status();
    assert.equal(status.nodeInfo.network, 'kestrel_9000-1');
    assert.ok(status.syncInfo.latestBlockHeight >= Number(receipt.blockNumber));
    const block = await comet.block(Number(receipt.blockNumber));
    assert.equal(`0x${Buffer.from(block.blockId.hash).toString('hex')}`, receipt.blockHash);
    assert.deepEqual(
      block.block.txs.map((t) => Buffer.from(t).toString('hex')),
      [tx.toString('hex')],
    );
    const info = await comet.abciInfo();
    assert.ok((info.lastBlockHeight ?? 0) >= Number(receipt.blockNumber));
    const low = await comet.broadcastTxSync({ tx }).catch((e: Error) => e); // mined now: nonce too low
    assert.ok(!(low instanceof Error), String(low));
    assert.equal(low.code, 32);
    assert.equal(low.log, 'nonce too low');
  });

  it('serves URI GET as CometBFT does', async () => {
    const health = await (await fetch(`${node.comet}/health`)).json();
    assert.deepEqual(health, { jsonrpc: '2.0', id: -1, result: {} });
    const st = await (await fetch(`${node.comet}/status`)).json();
    const h = st.result.sync_info.latest_block_height;
    assert.match(h, /^\d+$/);
    // The validator's compressed public key, from the home's priv_validator_key.json (computed on first use).
    const key = JSON.parse(readFileSync(join(node.home, 'config', 'priv_validator_key.json'), 'utf8'));
    const pub = secp256k1.publicKeyCreate(Buffer.from(key.priv_key.replace(/^0x/, ''), 'hex'), true);
    assert.equal(st.result.validator_info.pub_key.value, Buffer.from(pub).toString('base64'));
    const blk = await (await fetch(`${node.comet}/block?height=0`)).json();
    assert.equal(blk.result.block.header.height, '0');
    // AllBalances request {address: alice} in protobuf: field 1, length-delimited.
    const addr = Buffer.from(acc(alice.address));
    const data = Buffer.concat([Buffer.from([0x0a, addr.length]), addr]).toString('hex');
    const q = await (
      await fetch(`${node.comet}/abci_query?path="/cosmos.bank.v1beta1.Query/AllBalances"&data=0x${data}&height=${h}`)
    ).json();
    assert.equal(q.result.response.code, 0);
    assert.equal(q.result.response.height, h);
    assert.ok(Buffer.from(q.result.response.value, 'base64').includes(Buffer.from('stake')));
  });

  it('answers bad input in CometBFT wording', async () => {
    const addr = Buffer.from(acc(alice.address));
    const data = Buffer.concat([Buffer.from([0x0a, addr.length]), addr]).toString('hex');
    const future = await post(node.comet, 'abci_query', {
      path: '/cosmos.bank.v1beta1.Query/AllBalances',
      data,
      height: '999999',
    });
    assert.equal(future.result.response.code, 22);
    assert.match(
      future.result.response.log,
      /height 999999 must be less than or equal to the current blockchain height \d+/,
    );
    const neg = await post(node.comet, 'abci_query', ['/cosmos.bank.v1beta1.Query/AllBalances', data, '-1', false]);
    assert.equal(neg.result.response.code, 18);
    assert.match(neg.result.response.log, /cannot query with height < 0/);
    const wrongPrefix = Buffer.from(bech32.encode('cosmos', bech32.toWords(new Uint8Array(20))));
    const wp = await post(node.comet, 'abci_query', {
      path: '/cosmos.bank.v1beta1.Query/AllBalances',
      data: Buffer.concat([Buffer.from([0x0a, wrongPrefix.length]), wrongPrefix]).toString('hex'),
    });
    assert.match(wp.result.response.log, /invalid Bech32 prefix; expected kestrel, got cosmos/);
    const blk = await post(node.comet, 'block', { height: '999999' });
    assert.equal(blk.error.code, -32603);
    assert.match(blk.error.data, /height 999999 must be less than or equal to the current blockchain height/);
    assert.deepEqual((await post(node.comet, 'no_such_method', {})).error, {
      code: -32601,
      message: 'Method not found',
      data: '',
    });
    const badHex = await post(node.comet, 'abci_query', { path: '/x', data: 'zz' });
    assert.equal(badHex.error.code, -32602);
    const getErr = await fetch(`${node.comet}/block?height=999999`);
    assert.equal(getErr.status, 500);
  });
});
