// WebSocket subscriptions against a real kestreld: newHeads, logs, newPendingTransactions (hashes and full txs),
// syncing; eth_unsubscribe; HTTP refusal; subscriptions ending with their socket and working again on a new
// one; a consumer that stops reading being dropped; viem and ethers as clients.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { WebSocketProvider, id } from 'ethers';
import { createPublicClient, parseAbiItem, webSocket } from 'viem';
import WebSocket from 'ws';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { deployEmitter, emitManyData, pongData } from '../helpers/emitter.ts';
import {
  type KestrelNode,
  printLogsOnFailure,
  rpc,
  rpcResult,
  settlesWithin,
  sleep,
  startNode,
  waitFor,
} from '../helpers/node.ts';
import { sendTx, signTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const PONG = id('Pong(uint256)');
const alice = DEV_ACCOUNTS[6]!;
const bob = DEV_ACCOUNTS[7]!;

/** Collects eth_subscription notifications of one WsRpc connection by subscription id. */
function collect(ws: WsRpc): (sub: string, n: number, timeoutMs?: number) => Promise<any[]> {
  const got = new Map<string, any[]>();
  const pump = async () => {
    while (ws.isOpen) {
      let m: any;
      try {
        m = await ws.nextUnmatched(500);
      } catch {
        continue;
      }
      if (m?.method !== 'eth_subscription') continue;
      const list = got.get(m.params.subscription) ?? [];
      list.push(m.params.result ?? { error: m.params.error });
      got.set(m.params.subscription, list);
    }
  };
  void pump();
  return (sub, n, timeoutMs = 15_000) =>
    waitFor(
      `${n} notifications on ${sub}`,
      async () => ((got.get(sub)?.length ?? 0) >= n ? got.get(sub)!.splice(0, n) : undefined),
      timeoutMs,
    );
}

describe('eth_subscribe', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let emitter: string;
  before(async () => {
    node = await startNode({ args: ['--json-rpc.ws-subscription-buffer-bytes', '65536'] });
    emitter = await deployEmitter(node.http, alice.privateKey);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('newHeads, logs and newPendingTransactions deliver as blocks commit and txs arrive', async () => {
    const ws = await WsRpc.connect(node.ws);
    const wait = collect(ws);
    try {
      const heads = await ws.result<string>('eth_subscribe', ['newHeads']);
      const logs = await ws.result<string>('eth_subscribe', ['logs', { address: emitter, topics: [PONG] }]);
      const pending = await ws.result<string>('eth_subscribe', ['newPendingTransactions']);
      const full = await ws.result<string>('eth_subscribe', ['newPendingTransactions', true]);
      assert.match(heads, /^0x[0-9a-f]{1,32}$/);
      const { hash, receipt } = await sendTx(node.http, alice.privateKey, {
        to: emitter,
        data: pongData(5),
        gas: 100_000n,
      });
      const [head] = await wait(heads, 1);
      const block = await rpcResult(node.http, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
      for (const k of [
        'hash',
        'number',
        'parentHash',
        'stateRoot',
        'logsBloom',
        'timestamp',
        'baseFeePerGas',
        'miner',
      ]) {
        assert.equal(head[k], block[k], k);
      }
      assert.equal(head.transactions, undefined);
      const [log] = await wait(logs, 1);
      assert.deepEqual(log, (await rpcResult<any[]>(node.http, 'eth_getLogs', [{ blockHash: block.hash }]))[0]);
      assert.deepEqual(await wait(pending, 1), [hash]);
      const [tx] = await wait(full, 1);
      assert.equal(tx.hash, hash);
      assert.equal(tx.blockNumber, null);
      // A transfer makes a block but no Pong: the logs subscription stays quiet, heads does not.
      await sendTx(node.http, alice.privateKey, { to: bob.address, value: 1n });
      await wait(heads, 1);
      await assert.rejects(wait(logs, 1, 500));
      assert.equal(await ws.result('eth_unsubscribe', [heads]), true);
      assert.equal(await ws.result('eth_unsubscribe', [heads]), false);
    } finally {
      await ws.close();
    }
  });

  it('syncing answers an id; unknown kinds, bad options and HTTP are refused', async () => {
    const ws = await WsRpc.connect(node.ws);
    try {
      assert.match(await ws.result<string>('eth_subscribe', ['syncing']), /^0x/);
      const err = async (params: unknown[]) => (await ws.request('eth_subscribe', params)).error;
      assert.deepEqual(await err(['newBlocks']), {
        code: -32601,
        message: 'no "newBlocks" subscription in eth namespace',
      });
      assert.deepEqual(await err(['logs', { topics: [7] }]), {
        code: -32602,
        message: 'invalid argument 1: invalid topic(s)',
      });
      assert.deepEqual(await err(['newHeads', {}]), { code: -32602, message: 'too many arguments, want at most 1' });
      assert.equal((await err([]))?.code, -32602);
      assert.equal(await ws.result('eth_unsubscribe', ['0x1234']), false);
    } finally {
      await ws.close();
    }
    assert.deepEqual((await rpc(node.http, 'eth_subscribe', ['newHeads'])).error, {
      code: -32601,
      message: 'notifications not supported',
    });
    assert.deepEqual((await rpc(node.http, 'eth_unsubscribe', ['0x1'])).error, {
      code: -32601,
      message: 'notifications not supported',
    });
  });

  it('a subscription belongs to its socket: others cannot cancel it, it ends with it, a new socket works', async () => {
    const a = await WsRpc.connect(node.ws);
    const b = await WsRpc.connect(node.ws);
    const waitA = collect(a);
    const sub = await a.result<string>('eth_subscribe', ['newHeads']);
    assert.equal(await b.result('eth_unsubscribe', [sub]), false);
    await b.close();
    await a.close();
    const c = await WsRpc.connect(node.ws);
    const waitC = collect(c);
    try {
      const again = await c.result<string>('eth_subscribe', ['newHeads']);
      await sendTx(node.http, alice.privateKey, { to: bob.address, value: 1n });
      assert.equal((await waitC(again, 1))[0].number !== undefined, true);
      await assert.rejects(waitA(sub, 1, 300));
    } finally {
      await c.close();
    }
  });

  it('drops the subscriptions of a client that stops reading, and keeps serving others', async () => {
    const slow = new WebSocket(node.ws);
    await new Promise((res, rej) => {
      slow.once('open', res);
      slow.once('error', rej);
    });
    slow.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address: emitter }] }),
    );
    const subId = await new Promise<string>((res) => slow.once('message', (d) => res(JSON.parse(d.toString()).result)));
    (slow as any)._socket.pause(); // stop reading: the node's socket buffer must fill up
    const ok = await WsRpc.connect(node.ws);
    const wait = collect(ok);
    try {
      const heads = await ok.result<string>('eth_subscribe', ['newHeads']);
      const blob = '0x' + 'ab'.repeat(8000);
      const { nonce } = await signTx(node.http, bob.privateKey, { to: emitter, data: emitManyData(1), gas: 300_000n });
      const txs: Array<{ raw: string; hash: string }> = [];
      for (let i = 0; i < 24; i++) {
        txs.push(
          await signTx(node.http, bob.privateKey, {
            to: emitter,
            data: emitManyData(60, blob),
            gas: 5_000_000n,
            nonce: nonce + i,
          }),
        );
      }
      for (const t of txs) await rpcResult(node.http, 'eth_sendRawTransaction', [t.raw]);
      await waitFor('all mined', () => rpcResult(node.http, 'eth_getTransactionReceipt', [txs.at(-1)!.hash]), 60_000);
      await wait(heads, 1, 5_000);
      (slow as any)._socket.resume();
      let dropped: any;
      const dropNotice = new Promise<void>((res) => {
        slow.on('message', (d) => {
          const m = JSON.parse(d.toString());
          if (m.params?.error) {
            dropped = m;
            res();
          }
        });
      });
      await settlesWithin(dropNotice, 20_000);
      assert.ok(dropped, 'an error notification ends the subscription');
      assert.equal(dropped.params.subscription, subId);
      assert.match(dropped.params.error.message, /^subscription dropped: the client is not reading/);
    } finally {
      slow.terminate();
      await ok.close();
    }
  });

  it('serves viem watchBlocks / watchContractEvent and ethers WebSocketProvider', async () => {
    const client = createPublicClient({ transport: webSocket(node.ws, { retryCount: 0, reconnect: false }) });
    const blocks: bigint[] = [];
    const pongs: bigint[] = [];
    const un1 = client.watchBlocks({ onBlock: (b) => blocks.push(b.number) });
    const un2 = client.watchContractEvent({
      address: emitter as `0x${string}`,
      abi: [parseAbiItem('event Pong(uint256 indexed i)')],
      eventName: 'Pong',
      onLogs: (ls) => pongs.push(...ls.map((l) => l.args.i!)),
    });
    const provider = new WebSocketProvider(node.ws);
    const ethersBlocks: number[] = [];
    await provider.on('block', (n: number) => ethersBlocks.push(n));
    try {
      await sleep(300);
      const { receipt } = await sendTx(node.http, alice.privateKey, { to: emitter, data: pongData(11), gas: 100_000n });
      await waitFor('viem + ethers events', async () =>
        pongs.length >= 1 && blocks.length >= 1 && ethersBlocks.length >= 1 ? true : undefined,
      );
      assert.deepEqual(pongs, [11n]);
      assert.ok(blocks.includes(BigInt(receipt.blockNumber)));
      assert.ok(ethersBlocks.includes(Number(receipt.blockNumber)));
    } finally {
      un1();
      un2();
      await provider.destroy();
      const t = client.transport as unknown as { getRpcClient?: () => Promise<{ close(): void }> };
      (await t.getRpcClient?.())?.close();
    }
  });
});
