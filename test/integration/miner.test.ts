// The miner namespace through a real kestreld: private (bearer token), the PoS answers and -32004 errors,
// miner_setEtherbase (fees of the next block, eth_coinbase, persisted), miner_setGasPrice (app.toml with its
// comments kept, effective at restart, a --minimum-gas-prices flag wins with a warning).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { getAddress } from 'ethers';
import { nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode, waitForReceipt } from '../helpers/node.ts';
import { privateRpc } from '../helpers/privateRpc.ts';
import { signTx } from '../helpers/tx.ts';

const GWEI = 1_000_000_000n;
const NEW_ETHERBASE = '0x00000000000000000000000000000000000fee01';

const appToml = (node: KestrelNode) => readFileSync(join(node.home, 'config', 'app.toml'), 'utf8');
const comments = (text: string) => text.split('\n').filter((l) => l.trim().startsWith('#'));

describe('miner_', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let extra: KestrelNode | undefined;
  before(async () => {
    node = await startNode();
  });
  after(async () => {
    await extra?.dispose();
    await node?.dispose();
  });
  afterEach(printLogsOnFailure(() => [node, extra]));

  it('is private: without the bearer token, 4100 unauthorized', async () => {
    const r = await rpc(node.http, 'miner_getHashrate');
    assert.deepEqual(r.error, { code: 4100, message: 'unauthorized' });
  });

  it('answers like a proof-of-stake chain should', async () => {
    assert.deepEqual((await privateRpc(node, 'miner_getHashrate')).result, 0);
    assert.deepEqual((await privateRpc(node, 'miner_stop')).result, null);
    assert.deepEqual((await privateRpc(node, 'miner_setGasLimit', ['0x1c9c380'])).result, false);
    const start = await privateRpc(node, 'miner_start', [1]);
    assert.equal(start.error?.code, -32004);
    assert.match(start.error!.message, /^unsupported rpc function: miner_start: .*proof of stake/);
    const longExtra = await privateRpc(node, 'miner_setExtra', ['x'.repeat(33)]);
    assert.deepEqual(longExtra.error, { code: -32000, message: 'extra exceeds max length. 33 > 32' });
    const shortExtra = await privateRpc(node, 'miner_setExtra', ['kestrel']);
    assert.equal(shortExtra.error?.code, -32004);
    assert.match(shortExtra.error!.message, /^unsupported rpc function: miner_setExtra: /);
    assert.equal((await privateRpc(node, 'miner_setEtherbase', ['0x12'])).error?.code, -32602);
    // blocks keep coming after miner_stop
    const before = BigInt(await rpcResult<string>(node.http, 'eth_blockNumber'));
    const [sender] = nonCoinbaseAccounts(await rpcResult(node.http, 'eth_coinbase'));
    const t = await signTx(node.http, sender!.privateKey, { to: NEW_ETHERBASE, value: 0n });
    await rpcResult(node.http, 'eth_sendRawTransaction', [t.raw]);
    assert.ok(BigInt((await waitForReceipt(node.http, t.hash)).blockNumber) > before);
  });

  it("miner_setEtherbase: the next block's fees go to the new address; eth_coinbase and app.toml follow", async () => {
    const old = await rpcResult<string>(node.http, 'eth_coinbase');
    const commentsBefore = comments(appToml(node));
    assert.equal((await privateRpc(node, 'miner_setEtherbase', [NEW_ETHERBASE])).result, true);
    assert.equal(await rpcResult(node.http, 'eth_coinbase'), NEW_ETHERBASE);
    const [sender] = nonCoinbaseAccounts(old);
    const balanceBefore = BigInt(await rpcResult<string>(node.http, 'eth_getBalance', [NEW_ETHERBASE, 'latest']));
    const oldBefore = BigInt(await rpcResult<string>(node.http, 'eth_getBalance', [old, 'latest']));
    const t = await signTx(node.http, sender!.privateKey, {
      to: '0x00000000000000000000000000000000000000b1',
      value: 1n,
    });
    await rpcResult(node.http, 'eth_sendRawTransaction', [t.raw]);
    const receipt = await waitForReceipt(node.http, t.hash);
    const block = await rpcResult<any>(node.http, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
    assert.equal(block.miner, NEW_ETHERBASE);
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    assert.equal(
      BigInt(await rpcResult<string>(node.http, 'eth_getBalance', [NEW_ETHERBASE, receipt.blockNumber])),
      balanceBefore + fee,
    );
    assert.equal(
      BigInt(await rpcResult<string>(node.http, 'eth_getBalance', [old, receipt.blockNumber])),
      oldBefore,
      'the old etherbase gets nothing',
    );
    const text = appToml(node);
    assert.match(text, new RegExp(`\\[miner\\][^\\[]*\\netherbase = "${getAddress(NEW_ETHERBASE)}"`));
    assert.deepEqual(comments(text), commentsBefore, 'comments kept');
    node = await node.restart();
    assert.equal(await rpcResult(node.http, 'eth_coinbase'), NEW_ETHERBASE, 'persisted across a restart');
  });

  it('miner_setGasPrice: app.toml now, effective at restart; the start flag wins, with a warning', async () => {
    const [sender] = nonCoinbaseAccounts(NEW_ETHERBASE);
    const commentsBefore = comments(appToml(node));
    const under = async (n: KestrelNode) =>
      signTx(n.http, sender!.privateKey, {
        to: NEW_ETHERBASE,
        value: 1n,
        maxFeePerGas: 3n * GWEI,
        maxPriorityFeePerGas: GWEI,
      });
    assert.equal((await privateRpc(node, 'miner_setGasPrice', [`0x${(5n * GWEI).toString(16)}`])).result, true);
    const text = appToml(node);
    assert.match(text, /\nminimum-gas-prices = "5000000000akestrel"\n/);
    assert.deepEqual(comments(text), commentsBefore, 'comments kept');
    assert.match(node.logs(), /Please RESTART your node/);
    // not yet in effect
    const early = await under(node);
    await rpcResult(node.http, 'eth_sendRawTransaction', [early.raw]);
    await waitForReceipt(node.http, early.hash);

    node = await node.restart();
    const late = await under(node);
    const r = await rpc(node.http, 'eth_sendRawTransaction', [late.raw]);
    assert.deepEqual(r.error, { code: -32000, message: 'transaction underpriced' });
    const paid = await signTx(node.http, sender!.privateKey, {
      to: NEW_ETHERBASE,
      value: 1n,
      maxFeePerGas: 6n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    await rpcResult(node.http, 'eth_sendRawTransaction', [paid.raw]);
    await waitForReceipt(node.http, paid.hash);
    assert.ok(BigInt(await rpcResult<string>(node.http, 'eth_gasPrice')) >= 5n * GWEI);

    await node.stop();
    extra = await startNode({ home: node.home, args: ['--minimum-gas-prices', '0akestrel'] });
    const flagged = await under(extra);
    await rpcResult(extra.http, 'eth_sendRawTransaction', [flagged.raw]);
    await waitForReceipt(extra.http, flagged.hash);
    assert.match(
      extra.logs(),
      /warning: --minimum-gas-prices overrides minimum-gas-prices = "5000000000akestrel" in app\.toml/,
    );
    assert.match(appToml(extra), /\nminimum-gas-prices = "5000000000akestrel"\n/, 'the flag does not rewrite app.toml');
  });
});
