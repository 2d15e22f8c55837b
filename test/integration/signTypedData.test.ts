// eth_signTypedData_v4 through ethers' JsonRpcSigner (dev and unlocked accounts), and the real pending block.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { JsonRpcProvider, verifyTypedData } from 'ethers';
import { CHAIN_ID, DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { privateRpc } from '../helpers/privateRpc.ts';
import { signTx } from '../helpers/tx.ts';

const domain = { name: 'Kestrel', version: '1', chainId: CHAIN_ID, verifyingContract: '0x' + '11'.repeat(20) };
const types = {
  Order: [
    { name: 'maker', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'legs', type: 'Leg[]' },
  ],
  Leg: [
    { name: 'memo', type: 'string' },
    { name: 'data', type: 'bytes' },
  ],
};
const order = {
  maker: DEV_ACCOUNTS[0]!.address,
  amount: 10n ** 20n,
  legs: [
    { memo: 'a', data: '0x01' },
    { memo: 'b', data: '0x' },
  ],
};

describe('eth_signTypedData_v4 and the pending block', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let provider: JsonRpcProvider;

  before(async () => {
    node = await startNode();
    provider = new JsonRpcProvider(node.http, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    provider?.destroy();
    await node?.dispose();
  });

  it("a dev account's signTypedData verifies", async () => {
    const signer = await provider.getSigner(DEV_ACCOUNTS[0]!.address);
    const sig = await signer.signTypedData(domain, types, order);
    assert.equal(verifyTypedData(domain, types, order, sig), DEV_ACCOUNTS[0]!.address);
  });

  it('an account unlocked with personal_unlockAccount signs; a locked one is refused', async () => {
    const created = await privateRpc<string>(node, 'personal_newAccount', ['pw']);
    const addr = created.result!;
    const locked = await rpc(node.http, 'eth_signTypedData_v4', [
      addr,
      { types, primaryType: 'Order', domain, message: { ...order, amount: '1' } },
    ]);
    assert.match(locked.error?.message ?? '', /authentication needed/);
    await privateRpc(node, 'personal_unlockAccount', [addr, 'pw', 60]);
    const signer = await provider.getSigner(addr);
    const sig = await signer.signTypedData(domain, types, order);
    assert.equal(verifyTypedData(domain, types, order, sig).toLowerCase(), addr.toLowerCase());
  });

  it('malformed typed data is invalid params', async () => {
    const r = await rpc(node.http, 'eth_signTypedData_v4', [
      DEV_ACCOUNTS[0]!.address,
      { types: {}, primaryType: 'Nope' },
    ]);
    assert.equal(r.error?.code, -32602);
  });

  it('eth_getBlockByNumber("pending") is the block the next txs would make', async () => {
    const head = Number(await rpcResult<string>(node.http, 'eth_blockNumber'));
    const empty = await rpcResult(node.http, 'eth_getBlockByNumber', ['pending', false]);
    assert.equal(Number(empty.number), head + 1);
    assert.deepEqual(empty.transactions, []);
    assert.equal(await rpcResult(node.http, 'eth_getBlockByHash', [empty.hash, false]), null, 'not a stored block');
    await rpcResult(node.http, 'evm_setAutomine', [false]);
    const sent: string[] = [];
    for (const i of [5, 6]) {
      const { raw, hash } = await signTx(node.http, DEV_ACCOUNTS[i]!.privateKey, {
        to: DEV_ACCOUNTS[1]!.address,
        value: 1n,
      });
      await rpcResult(node.http, 'eth_sendRawTransaction', [raw]);
      sent.push(hash);
    }
    const pending = await rpcResult(node.http, 'eth_getBlockByNumber', ['pending', true]);
    assert.equal(Number(pending.number), head + 1);
    assert.deepEqual(pending.transactions.map((t: any) => t.hash).sort(), [...sent].sort());
    assert.equal(Number(pending.gasUsed), 42_000);
    assert.equal(pending.parentHash, (await rpcResult(node.http, 'eth_getBlockByNumber', ['latest', false])).hash);
    assert.equal(Number(await rpcResult<string>(node.http, 'eth_blockNumber')), head, 'nothing was mined');
    await rpcResult(node.http, 'evm_mine');
    const mined = await rpcResult(node.http, 'eth_getBlockByNumber', [`0x${(head + 1).toString(16)}`, false]);
    assert.equal(mined.stateRoot, pending.stateRoot, 'the preview executed the txs as the block did');
    await rpcResult(node.http, 'evm_setAutomine', [true]);
  });
});
