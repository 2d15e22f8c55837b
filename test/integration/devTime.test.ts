// Time travel with Anvil's semantics (issue 29 item 3), each step run on a real `kestreld start --dev` and on Anvil
// 1.7.1 side by side: evm_setNextBlockTimestamp (the head's own timestamp allowed, an earlier one refused in Anvil's
// words), anvil_setBlockTimestampInterval / anvil_removeBlockTimestampInterval, anvil_setTime (also backwards) and
// anvil_mine's interval. Where the wall clock may tick during a step, a second of slack is allowed.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';

const num = (h: string) => Number(BigInt(h));

describe('dev clock: Kestrel beside Anvil', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let anvil: RunningNode;
  let both: Array<[string, string]>;

  const latestTs = async (url: string) =>
    num((await rpcResult(url, 'eth_getBlockByNumber', ['latest', false])).timestamp);
  const tsAt = async (url: string, n: number) =>
    num((await rpcResult(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).timestamp);
  const head = async (url: string) => num(await rpcResult(url, 'eth_blockNumber'));

  before(async () => {
    [node, anvil] = await Promise.all([startNode(), startAnvil()]);
    both = [
      ['kestrel', node.http],
      ['anvil', anvil.url],
    ];
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await Promise.all([node?.dispose(), anvil?.stop()]);
  });

  it("evm_setNextBlockTimestamp: exact, the head's own timestamp allowed, an earlier one refused in Anvil's words", async () => {
    for (const [name, url] of both) {
      await rpcResult(url, 'evm_mine');
      const target = (await latestTs(url)) + 500;
      await rpcResult(url, 'evm_setNextBlockTimestamp', [target]);
      await rpcResult(url, 'evm_mine');
      assert.equal(await latestTs(url), target, name);
      await rpcResult(url, 'evm_setNextBlockTimestamp', [`0x${target.toString(16)}`]);
      await rpcResult(url, 'evm_mine');
      assert.equal(await latestTs(url), target, `${name}: the same timestamp again`);
      const low = await rpc(url, 'evm_setNextBlockTimestamp', [target - 1]);
      assert.equal(low.error?.code, -32602, name);
      assert.equal(low.error?.message, `Timestamp error: ${target - 1} is lower than previous block's timestamp`, name);
      const lowMine = await rpc(url, 'evm_mine', [target - 1]);
      assert.equal(lowMine.error?.message, `Timestamp error: ${target - 1} is lower than previous block's timestamp`);
    }
  });

  it('anvil_setBlockTimestampInterval: each block the interval after the last, whatever the clock says', async () => {
    for (const [name, url] of both) {
      assert.equal(await rpcResult(url, 'anvil_setBlockTimestampInterval', [10]), null, name);
      const start = await latestTs(url);
      await rpcResult(url, 'evm_mine');
      await rpcResult(url, 'evm_increaseTime', [5]); // no effect while an interval is set
      await rpcResult(url, 'evm_mine');
      assert.equal(await latestTs(url), start + 20, name);
      // A set next timestamp wins for one block; the interval goes on from it.
      await rpcResult(url, 'evm_setNextBlockTimestamp', [start + 1000]);
      await rpcResult(url, 'evm_mine');
      await rpcResult(url, 'evm_mine');
      assert.equal(await latestTs(url), start + 1010, name);
      await rpcResult(url, 'anvil_setBlockTimestampInterval', [0]);
      await rpcResult(url, 'evm_mine');
      assert.equal(await latestTs(url), start + 1010, `${name}: interval 0 repeats the timestamp`);
      assert.equal(await rpcResult(url, 'anvil_removeBlockTimestampInterval'), true, name);
      assert.equal(await rpcResult(url, 'anvil_removeBlockTimestampInterval'), false, name);
      await rpcResult(url, 'evm_mine');
      assert.ok((await latestTs(url)) > start + 1010, `${name}: the clock again`);
      assert.equal((await rpc(url, 'anvil_setBlockTimestampInterval', [-1])).error?.code, -32602, name);
    }
  });

  it('anvil_setTime: the next block gets the set time, ahead or behind the head', async () => {
    for (const [name, url] of both) {
      const ahead = (await latestTs(url)) + 100_000;
      await rpcResult(url, 'anvil_setTime', [ahead]);
      await rpcResult(url, 'evm_mine');
      const t1 = await latestTs(url);
      assert.ok(t1 >= ahead && t1 <= ahead + 1, `${name}: ${t1} vs ${ahead}`);
      const behind = Math.floor(Date.now() / 1000) - 50_000;
      assert.equal(await rpcResult(url, 'anvil_setTime', [behind]), 0, `${name}: a past time gives 0`);
      await rpcResult(url, 'evm_mine');
      const t2 = await latestTs(url);
      assert.ok(t2 >= behind && t2 <= behind + 1, `${name}: ${t2} vs ${behind}`);
      // From there the clock runs on from the set time.
      await rpcResult(url, 'evm_increaseTime', [3600]);
      await rpcResult(url, 'evm_mine');
      const t3 = await latestTs(url);
      assert.ok(t3 - t2 >= 3600 && t3 - t2 <= 3602, `${name}: +${t3 - t2}`);
    }
  });

  it('anvil_mine(blocks, interval) moves the clock by the interval before each block, as Anvil', async () => {
    for (const [name, url] of both) {
      const h = await head(url);
      const t0 = await latestTs(url);
      assert.equal(await rpcResult(url, 'anvil_mine', ['0x3', '0x64']), null, name);
      assert.equal(await head(url), h + 3, name);
      const ts = [t0, ...(await Promise.all([1, 2, 3].map((i) => tsAt(url, h + i))))];
      for (let i = 1; i < ts.length; i++) {
        const step = ts[i]! - ts[i - 1]!;
        assert.ok(step >= 100 && step <= 102, `${name}: block ${h + i} is +${step}`);
      }
    }
  });

  it('evm_revert restores an interval and a set time with the chain', async () => {
    const url = node.http;
    const snap = await rpcResult(url, 'evm_snapshot');
    await rpcResult(url, 'anvil_setBlockTimestampInterval', [7]);
    await rpcResult(url, 'evm_revert', [snap]);
    assert.equal(await rpcResult(url, 'anvil_removeBlockTimestampInterval'), false);
  });
});
