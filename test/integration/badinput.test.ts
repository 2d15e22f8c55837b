// Bad input over raw HTTP and WS: each gets the right JSON-RPC error (geth's codes and wording), and the node
// keeps serving afterwards. Also transaction admission errors with geth's messages.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Wallet, keccak256, toUtf8Bytes } from 'ethers';
import { nonCoinbaseAccounts, type DevAccount } from '../helpers/accounts.ts';
import {
  type KestrelNode,
  type RpcResponse,
  post,
  postRaw,
  printLogsOnFailure,
  rpc,
  rpcResult,
  startNode,
  waitForReceipt,
} from '../helpers/node.ts';
import { sendTx, signTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const RANDOM_HASH = keccak256(toUtf8Bytes('unknown block'));
const ADDR = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const MiB = 1024 * 1024;

const req = (method: string, params: unknown[], id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

function expectError(res: unknown, code: number, message?: string | RegExp, id?: unknown): void {
  assert.ok(
    res !== null && typeof res === 'object' && !Array.isArray(res),
    `expected one response object, got ${JSON.stringify(res)}`,
  );
  const r = res as RpcResponse;
  assert.equal(r.jsonrpc, '2.0', `jsonrpc field in ${JSON.stringify(r)}`);
  assert.ok(r.error, `expected an error, got ${JSON.stringify(r)}`);
  assert.equal(r.result, undefined, 'error responses carry no result');
  assert.equal(r.error.code, code, `code in ${JSON.stringify(r.error)}`);
  if (typeof message === 'string') assert.equal(r.error.message, message);
  else if (message) assert.match(r.error.message, message);
  if (id !== undefined) assert.deepEqual(r.id, id, 'id echo');
}

/** A request body, what the JSON-RPC answer must be. Used over HTTP and over WS. */
interface BadCase {
  name: string;
  body: string;
  code: number;
  message?: string | RegExp;
  /** Expected id in the answer (null for parse errors and unidentifiable requests). */
  id?: unknown;
}

const cases: BadCase[] = [
  { name: 'malformed JSON', body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"', code: -32700, id: null },
  { name: 'garbage', body: 'not json at all', code: -32700, id: null },
  { name: 'a bare number', body: '42', code: -32600, id: null },
  { name: 'a bare string', body: '"eth_blockNumber"', code: -32600, id: null },
  { name: 'missing method', body: '{"jsonrpc":"2.0","id":1,"params":[]}', code: -32600 },
  { name: 'method not a string', body: '{"jsonrpc":"2.0","id":1,"method":5,"params":[]}', code: -32600 },
  {
    name: 'wrong jsonrpc version',
    body: '{"jsonrpc":"1.0","id":1,"method":"eth_blockNumber","params":[]}',
    code: -32600,
  },
  {
    name: 'id is an object',
    body: '{"jsonrpc":"2.0","id":{"a":1},"method":"eth_blockNumber","params":[]}',
    code: -32600,
  },
  {
    name: 'params not an array',
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":"0x1"}',
    code: -32602,
    id: 1,
  },
  {
    name: 'unknown method',
    body: req('eth_fooBar', [], 'x-1'),
    code: -32601,
    message: 'the method eth_fooBar does not exist/is not available',
    id: 'x-1',
  },
  {
    name: 'disabled namespace / unknown namespace',
    body: req('admin_peers', [], 2),
    code: -32601,
    message: 'the method admin_peers does not exist/is not available',
    id: 2,
  },
  {
    name: 'missing required argument',
    body: req('eth_getBalance', []),
    code: -32602,
    message: 'missing value for required argument 0',
    id: 1,
  },
  {
    name: 'missing second required argument',
    body: req('eth_getBlockByNumber', ['0x0']),
    code: -32602,
    message: 'missing value for required argument 1',
  },
  {
    name: 'too many arguments',
    body: req('eth_blockNumber', ['0x1']),
    code: -32602,
    message: /^too many arguments, want at most 0$/,
  },
  {
    name: 'address as number',
    body: req('eth_getBalance', [12345, 'latest']),
    code: -32602,
    message: /^invalid argument 0: /,
  },
  {
    name: 'address as object',
    body: req('eth_getBalance', [{}, 'latest']),
    code: -32602,
    message: /^invalid argument 0: /,
  },
  {
    name: 'bool as string',
    body: req('eth_getBlockByNumber', ['0x0', 'yes']),
    code: -32602,
    message: /^invalid argument 1: /,
  },
  {
    name: 'block number as JSON number',
    body: req('eth_getBlockByNumber', [1, false]),
    code: -32602,
    message: /^invalid argument 0: /,
  },
  {
    name: 'block tag unknown',
    body: req('eth_getBalance', [ADDR, 'newest']),
    code: -32602,
    message: /^invalid argument 1: /,
  },
  {
    name: 'odd-length hex address',
    body: req('eth_getBalance', ['0x70997970C51812dc3A010C7d01b50e0d17dc79C', 'latest']),
    code: -32602,
    message: /^invalid argument 0: .*hex string of odd length/,
  },
  {
    name: 'short (even-length) address',
    body: req('eth_getBalance', ['0x70997970c51812dc3a010c7d01b50e0d17dc79', 'latest']),
    code: -32602,
    message: /^invalid argument 0: /,
  },
  {
    name: 'odd-length hex hash',
    body: req('eth_getTransactionByHash', ['0x' + 'a'.repeat(63)]),
    code: -32602,
    message: /^invalid argument 0: .*hex string of odd length/,
  },
  {
    name: 'odd-length call data',
    body: req('eth_call', [{ to: ADDR, data: '0x123' }, 'latest']),
    code: -32602,
    message: /^invalid argument 0: .*hex string of odd length/,
  },
  {
    name: 'odd-length raw transaction',
    body: req('eth_sendRawTransaction', ['0xf86']),
    code: -32602,
    message: /^invalid argument 0: .*hex string of odd length/,
  },
  {
    name: 'hex without 0x prefix',
    body: req('eth_getBlockByNumber', ['1', false]),
    code: -32602,
    message: /^invalid argument 0: .*hex string without 0x prefix/,
  },
  {
    name: 'non-hex characters',
    body: req('eth_getBalance', ['0x' + 'zz'.repeat(20), 'latest']),
    code: -32602,
    message: /^invalid argument 0: /,
  },
  {
    name: 'leading-zero block number',
    body: req('eth_getBlockByNumber', ['0x01', false]),
    code: -32602,
    message: /^invalid argument 0: .*hex number with leading zero digits/,
  },
  {
    name: 'leading-zero block number in a state selector',
    body: req('eth_getBalance', [ADDR, '0x00']),
    code: -32602,
    message: /^invalid argument 1: .*hex number with leading zero digits/,
  },
  {
    name: 'leading-zero index',
    body: req('eth_getTransactionByBlockNumberAndIndex', ['0x0', '0x00']),
    code: -32602,
    message: /^invalid argument 1: .*hex number with leading zero digits/,
  },
  {
    name: 'leading-zero value in a call object',
    body: req('eth_call', [{ to: ADDR, value: '0x01' }, 'latest']),
    code: -32602,
    message: /^invalid argument 0: .*hex number with leading zero digits/,
  },
  {
    name: 'empty quantity 0x',
    body: req('eth_getBlockByNumber', ['0x', false]),
    code: -32602,
    message: /^invalid argument 0: /,
  },
  {
    name: '2^256 value in eth_call',
    body: req('eth_call', [{ to: ADDR, value: '0x1' + '0'.repeat(64) }, 'latest']),
    code: -32602,
    message: /^invalid argument 0: .*hex number > 256 bits/,
  },
  {
    name: '2^256 value in eth_estimateGas',
    body: req('eth_estimateGas', [{ to: ADDR, value: '0x1' + '0'.repeat(64) }]),
    code: -32602,
    message: /^invalid argument 0: .*hex number > 256 bits/,
  },
  {
    name: 'block number > 64 bits',
    body: req('eth_getBlockByNumber', ['0x1' + '0'.repeat(16), false]),
    code: -32602,
    message: /^invalid argument 0: /,
  },
  {
    name: 'both blockHash and blockNumber in a selector',
    body: req('eth_getBalance', [ADDR, { blockHash: RANDOM_HASH, blockNumber: '0x0' }]),
    code: -32602,
    message: /^invalid argument 1: /,
  },
  {
    name: 'unknown block hash in an EIP-1898 selector',
    body: req('eth_getBalance', [ADDR, { blockHash: RANDOM_HASH }]),
    code: -32000,
    message: /not found/,
  },
  { name: 'empty batch', body: '[]', code: -32600, message: 'empty batch', id: null },
];

describe('bad input', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let ws: WsRpc;

  before(async () => {
    node = await startNode();
    ws = await WsRpc.connect(node.ws);
  });
  afterEach(printLogsOnFailure(() => node));
  // After every case the node still answers, over HTTP and on the same WS connection.
  afterEach(async () => {
    if (!node) return;
    assert.match(await rpcResult<string>(node.http, 'eth_blockNumber'), /^0x[0-9a-f]+$/);
    if (ws) {
      assert.ok(ws.isOpen, 'the WS connection stays open');
      assert.match(await ws.result<string>('eth_blockNumber'), /^0x[0-9a-f]+$/);
    }
  });
  after(async () => {
    await ws?.close();
    await node?.dispose();
  });

  describe('over HTTP', () => {
    for (const c of cases) {
      it(c.name, async () => {
        const res = await post(node.http, c.body);
        assert.ok(res.json !== undefined, `HTTP ${res.status}, non-JSON body: ${res.text.slice(0, 300)}`);
        expectError(res.json, c.code, c.message, c.id);
      });
    }

    it('unknown block hash: getBlockByHash is null, not an error', async () => {
      const r = await rpc(node.http, 'eth_getBlockByHash', [RANDOM_HASH, false]);
      assert.equal(r.error, undefined);
      assert.equal(r.result, null);
    });

    it('body over 5 MiB → HTTP 413', async () => {
      const body = req('web3_sha3', ['0x' + 'ab'.repeat(3 * MiB)]); // ~6 MiB
      const res = await postRaw(node.http, body);
      assert.equal(res.status, 413, `status ${res.status}: ${res.text.slice(0, 200)}`);
    });

    it('chunked body over 5 MiB (no Content-Length) → HTTP 413', async () => {
      const body = req('web3_sha3', ['0x' + 'ab'.repeat(3 * MiB)]);
      // Ten in a row, each answered. uWS resets a connection whose chunked upload goes on after the reply was
      // written, and the reset destroyed the 413 before the client read it (135 of 200 uploads got no answer, so
      // ten arriving had odds of about 2 in 100,000); the node now answers once the upload has ended.
      for (let i = 0; i < 10; i++) {
        const res = await postRaw(node.http, body, { chunked: true });
        assert.equal(res.status, 413, `upload ${i}: status ${res.status}: ${res.text.slice(0, 200)}`);
      }
    });

    it('chunked body under the limit is served', async () => {
      const data = '0x' + 'cd'.repeat(1024);
      const res = await postRaw(node.http, req('web3_sha3', [data]), { chunked: true });
      assert.equal(res.status, 200, res.text.slice(0, 200));
      assert.equal((JSON.parse(res.text) as RpcResponse).result, keccak256(data));
    });

    it('body just under 5 MiB is served', async () => {
      const data = '0x' + 'ab'.repeat(2 * MiB); // 4 MiB of hex
      const res = await post(node.http, req('web3_sha3', [data]));
      assert.equal(res.status, 200);
      assert.equal((res.json as RpcResponse).result, keccak256(data));
    });

    it('batch of 1001 → -32600 "batch too large"', async () => {
      const batch = Array.from({ length: 1001 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_blockNumber',
        params: [],
      }));
      const res = await post(node.http, JSON.stringify(batch));
      const first = Array.isArray(res.json) ? res.json[0] : res.json;
      if (Array.isArray(res.json)) assert.equal(res.json.length, 1, 'geth answers a too-large batch with one error');
      expectError(first, -32600, /batch too large/);
    });

    it('batch of exactly 1000 is served, each id echoed', async () => {
      const batch = Array.from({ length: 1000 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_chainId',
        params: [],
      }));
      const res = await post(node.http, JSON.stringify(batch));
      assert.ok(Array.isArray(res.json), `expected an array, got ${res.text.slice(0, 200)}`);
      const arr = res.json as RpcResponse[];
      assert.equal(arr.length, 1000);
      assert.deepEqual(
        arr.map((r) => r.id).sort((a, b) => (a as number) - (b as number)),
        batch.map((b) => b.id),
      );
      for (const r of arr) assert.equal(r.result, '0x2328');
    });

    it('mixed batch: valid, invalid, unknown method, notification', async () => {
      const body = JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 'b', method: 'eth_getBlockByNumber', params: ['0x01', false] },
        { jsonrpc: '2.0', id: 'c', method: 'nope_nope', params: [] },
        { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }, // notification: no answer
        42,
      ]);
      const res = await post(node.http, body);
      assert.ok(Array.isArray(res.json), res.text);
      const arr = res.json as RpcResponse[];
      assert.equal(arr.length, 4, 'no answer for the notification');
      const byId = new Map(arr.filter((r) => r.id !== null).map((r) => [r.id, r]));
      assert.equal(byId.get('a')?.result, '0x2328');
      expectError(byId.get('b'), -32602, /^invalid argument 0: .*hex number with leading zero digits/, 'b');
      expectError(byId.get('c'), -32601, 'the method nope_nope does not exist/is not available', 'c');
      const invalid = arr.find((r) => r.id === null);
      expectError(invalid, -32600, undefined, null);
    });

    it('a notification gets no response body', async () => {
      const res = await post(node.http, JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }));
      assert.ok([200, 202, 204].includes(res.status), `status ${res.status}`);
      assert.equal(res.text.trim(), '', `notification answered with: ${res.text.slice(0, 200)}`);
    });

    it('id echo: string, zero, large number', async () => {
      for (const id of ['abc', 0, 9007199254740991, 'ünïcode']) {
        const res = await post(node.http, req('eth_chainId', [], id));
        assert.deepEqual((res.json as RpcResponse).id, id);
        assert.equal((res.json as RpcResponse).result, '0x2328');
      }
    });
  });

  describe('over WS', () => {
    for (const c of cases) {
      it(c.name, async () => {
        // Sent as a raw frame: whatever id the answer carries, it is the next message on this connection.
        expectError(await ws.sendRaw(c.body), c.code, c.message, c.id);
      });
    }

    it('a notification gets no response; the next request does', async () => {
      ws.drainUnmatched();
      ws.sendRawNoWait(JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }));
      const r = await ws.request('eth_chainId');
      assert.equal(r.result, '0x2328');
      await new Promise((res) => setTimeout(res, 200));
      assert.deepEqual(ws.drainUnmatched(), [], 'nothing may answer the notification');
    });

    it('batch over WS', async () => {
      const answer = await ws.sendRaw(
        JSON.stringify([
          { jsonrpc: '2.0', id: 901, method: 'eth_chainId', params: [] },
          { jsonrpc: '2.0', id: 902, method: 'net_version', params: [] },
        ]),
      );
      assert.ok(Array.isArray(answer), JSON.stringify(answer));
      const byId = new Map((answer as RpcResponse[]).map((r) => [r.id, r.result]));
      assert.equal(byId.get(901), '0x2328');
      assert.equal(byId.get(902), '9000');
    });
  });

  describe('transaction admission errors (geth wording)', () => {
    let sender: DevAccount;
    before(async () => {
      const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
      sender = nonCoinbaseAccounts(coinbase)[0]!;
      await sendTx(node.http, sender.privateKey, { to: ADDR, value: 1n }); // nonce 0 used
    });

    const submit = async (raw: string) => rpc(node.http, 'eth_sendRawTransaction', [raw]);

    it('nonce too low', async () => {
      const { raw } = await signTx(node.http, sender.privateKey, { to: ADDR, value: 2n, nonce: 0 });
      expectError(await submit(raw), -32000, /^nonce too low/);
    });

    it('already known (same tx twice while it waits behind a nonce gap), then both mine once the gap closes', async () => {
      const next = Number(
        BigInt(await rpcResult<string>(node.http, 'eth_getTransactionCount', [sender.address, 'latest'])),
      );
      const gapped = await signTx(node.http, sender.privateKey, { to: ADDR, value: 3n, nonce: next + 1 });
      const first = await submit(gapped.raw);
      assert.equal(first.error, undefined, `a future-nonce tx is queued, not rejected: ${JSON.stringify(first.error)}`);
      assert.equal(first.result, gapped.hash);
      expectError(await submit(gapped.raw), -32000, /^already known/);
      const filler = await signTx(node.http, sender.privateKey, { to: ADDR, value: 4n, nonce: next });
      assert.equal((await submit(filler.raw)).result, filler.hash);
      assert.equal((await waitForReceipt(node.http, filler.hash)).status, '0x1');
      assert.equal((await waitForReceipt(node.http, gapped.hash)).status, '0x1');
    });

    it('insufficient funds for gas * price + value', async () => {
      const pauper = Wallet.createRandom();
      const { raw } = await signTx(node.http, pauper.privateKey, { to: ADDR, value: 1n, nonce: 0 });
      expectError(await submit(raw), -32000, /^insufficient funds for gas \* price \+ value/);
      const rich = await signTx(node.http, sender.privateKey, { to: ADDR, value: 10n ** 40n });
      expectError(await submit(rich.raw), -32000, /^insufficient funds for gas \* price \+ value/);
    });

    it('intrinsic gas too low', async () => {
      const { raw } = await signTx(node.http, sender.privateKey, { to: ADDR, value: 1n, gas: 20_999n });
      expectError(await submit(raw), -32000, /^intrinsic gas too low/);
    });

    it('a gas limit above the block gas limit: on Osaka the EIP-7825 cap answers first, as in geth', async () => {
      const latest = await rpcResult<{ gasLimit: string }>(node.http, 'eth_getBlockByNumber', ['latest', false]);
      const gas = BigInt(latest.gasLimit) + 1n;
      assert.ok(gas > 1n << 24n, 'the block gas limit is above the Osaka cap');
      const { raw } = await signTx(node.http, sender.privateKey, { to: ADDR, value: 1n, gas });
      expectError(
        await submit(raw),
        -32000,
        new RegExp(`^transaction gas limit too high \\(cap: 16777216, tx: ${gas}\\)$`),
      );
    });

    it('transaction underpriced (gas price 0, below the base fee)', async () => {
      const latest = await rpcResult<{ baseFeePerGas: string }>(node.http, 'eth_getBlockByNumber', ['latest', false]);
      assert.ok(BigInt(latest.baseFeePerGas) > 0n, 'base fee is positive');
      const { raw } = await signTx(node.http, sender.privateKey, { to: ADDR, value: 1n, type: 0, gasPrice: 0n });
      expectError(await submit(raw), -32000, /^(transaction underpriced|max fee per gas less than block base fee)/);
    });

    it('wrong chain id is rejected, unprotected legacy too', async () => {
      const w = new Wallet(sender.privateKey);
      const nonce = Number(
        BigInt(await rpcResult<string>(node.http, 'eth_getTransactionCount', [sender.address, 'pending'])),
      );
      const gasPrice = BigInt(await rpcResult<string>(node.http, 'eth_gasPrice'));
      const wrongChain = await w.signTransaction({
        type: 0,
        chainId: 1n,
        nonce,
        to: ADDR,
        gasLimit: 21_000n,
        gasPrice,
      });
      const r1 = await submit(wrongChain);
      assert.ok(r1.error, `wrong chain id accepted: ${JSON.stringify(r1)}`);
      const unprotected = await w.signTransaction({
        type: 0,
        chainId: 0n,
        nonce,
        to: ADDR,
        gasLimit: 21_000n,
        gasPrice,
      });
      const r2 = await submit(unprotected);
      assert.ok(r2.error, `unprotected legacy tx accepted: ${JSON.stringify(r2)}`);
    });

    it('undecodable raw transaction → an error, not a crash', async () => {
      const r = await submit('0xdeadbeef');
      assert.ok(r.error, JSON.stringify(r));
      assert.ok(r.error.code === -32602 || r.error.code === -32000, JSON.stringify(r.error));
    });
  });
});
