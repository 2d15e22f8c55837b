// Dev conveniences (issue 29 item 6) on a real `kestreld start --dev` beside Anvil 1.7.1: auto-impersonation
// (anvil_autoImpersonateAccount and --auto-impersonate).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode, waitForReceipt } from '../helpers/node.ts';

const stranger = '0x' + '2b'.repeat(20);
const to = '0x' + '3c'.repeat(20);

describe('dev conveniences beside Anvil', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let flagged: KestrelNode;
  let anvil: RunningNode;

  before(async () => {
    [node, flagged, anvil] = await Promise.all([
      startNode(),
      startNode({ args: ['--auto-impersonate'] }),
      startAnvil(),
    ]);
  });
  afterEach(printLogsOnFailure(() => [node, flagged]));
  after(async () => {
    await Promise.all([node?.dispose(), flagged?.dispose(), anvil?.stop()]);
  });

  const sendFromStranger = (url: string) =>
    rpc<string>(url, 'eth_sendTransaction', [{ from: stranger, to, value: '0x1', gas: '0x5208' }]);

  it('anvil_autoImpersonateAccount(true) lets any address send without its key, (false) stops it, as on Anvil', async () => {
    for (const url of [node.http, anvil.url]) {
      await rpcResult(url, 'anvil_setBalance', [stranger, '0xde0b6b3a7640000']);
      assert.ok((await sendFromStranger(url)).error, `${url}: refused before`);
      assert.equal(await rpcResult(url, 'anvil_autoImpersonateAccount', [true]), null);
      const sent = await sendFromStranger(url);
      assert.equal(sent.error, undefined, JSON.stringify(sent.error));
      const receipt = await waitForReceipt(url, sent.result!);
      assert.equal(receipt.status, '0x1');
      assert.equal(receipt.from, stranger);
      assert.equal(await rpcResult(url, 'hardhat_autoImpersonateAccount', [false]), null);
      assert.ok((await sendFromStranger(url)).error, `${url}: refused after`);
      assert.equal((await rpc(url, 'anvil_autoImpersonateAccount', ['yes'])).error?.code, -32602);
    }
  });

  it('--auto-impersonate starts with it on', async () => {
    await rpcResult(flagged.http, 'anvil_setBalance', [stranger, '0xde0b6b3a7640000']);
    const sent = await sendFromStranger(flagged.http);
    assert.equal((await waitForReceipt(flagged.http, sent.result!)).status, '0x1');
  });
});
