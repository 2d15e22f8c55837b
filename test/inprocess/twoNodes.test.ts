// Two nodes in one process on different homes: what one does is invisible to the other, and closing one leaves the
// other serving. Proves the node keeps no module-level mutable state (ARCHITECTURE.md, "Layers").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { rpcResult, waitForReceipt } from '../helpers/node.ts';
import { signTx } from '../helpers/tx.ts';
import { createTestNode, type TestNode } from '../helpers/testNode.ts';

describe('two in-process nodes', () => {
  let a: TestNode;
  let b: TestNode;
  before(async () => {
    [a, b] = await Promise.all([createTestNode(), createTestNode()]);
  });
  after(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
  });

  it('run on their own homes and ports', () => {
    assert.notEqual(a.home, b.home);
    assert.notEqual(a.node.httpPort, b.node.httpPort);
    assert.notEqual(a.node.app, b.node.app);
  });

  it('do not share chain, state or pool', async () => {
    const sender = DEV_ACCOUNTS[1]!;
    const to = DEV_ACCOUNTS[2]!.address;
    const { raw } = await signTx(a.url, sender.privateKey, { to, value: 12345n, nonce: 0 });
    const hash = await rpcResult<string>(a.url, 'eth_sendRawTransaction', [raw]);
    await waitForReceipt(a.url, hash);
    assert.equal(await rpcResult(a.url, 'eth_getTransactionCount', [sender.address, 'latest']), '0x1');
    assert.equal(await rpcResult(b.url, 'eth_getTransactionCount', [sender.address, 'latest']), '0x0');
    assert.equal(await rpcResult(b.url, 'eth_getTransactionByHash', [hash]), null);
    // A fresh chain has block 1 (sealed at genesis time); only `a` made a block after it.
    assert.equal(await rpcResult(b.url, 'eth_blockNumber'), '0x1');
    assert.ok(BigInt(await rpcResult<string>(a.url, 'eth_blockNumber')) > 1n);
    const [balA, balB] = await Promise.all([
      rpcResult<string>(a.url, 'eth_getBalance', [to, 'latest']),
      rpcResult<string>(b.url, 'eth_getBalance', [to, 'latest']),
    ]);
    assert.equal(BigInt(balA) - BigInt(balB), 12345n);
  });

  it('keep serving when the other one closes', async () => {
    await a.close();
    assert.equal(await rpcResult(b.url, 'eth_chainId'), '0x2328');
  });
});
