import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidParamsError, MethodNotFoundError, RevertError } from '../../errors/index.ts';
import { DEFAULT_RPC_LIMITS, PlainString, handleBody, handlerFailedReply } from './jsonrpc.ts';
import type { CallMeta, Dispatcher, RpcLimits } from './jsonrpc.ts';

const meta: CallMeta = { transport: 'http', authorized: false };

function fake(): { dispatcher: Dispatcher; calls: string[]; logs: string[]; log: (m: string) => void } {
  const calls: string[] = [];
  const logs: string[] = [];
  let release: (() => void) | undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const dispatcher: Dispatcher = {
    call(method, params) {
      calls.push(method);
      // A non-async implementation may throw before returning a promise; the transport must cope.
      if (method === 'syncCrash') throw new TypeError('sync boom');
      // What a hexResult method answers from a cache: its text, at once.
      if (method === 'plain') return new PlainString(String(params[0]));
      return asyncCall(method, params);
    },
  };
  async function asyncCall(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case 'echo':
        return { method, params };
      case 'text':
        return params[0];
      case 'invalid':
        throw new InvalidParamsError('invalid argument 0: bad');
      case 'crash':
        throw new Error('boom');
      case 'revert':
        throw new RevertError(Uint8Array.of(0xde, 0xad));
      case 'nothing':
        return undefined;
      case 'bigint':
        return 1n;
      case 'fn':
        return () => 1;
      case 'wait':
        await gate;
        return 'waited';
      case 'release':
        release!();
        return 'released';
      default:
        throw new MethodNotFoundError(method);
    }
  }
  return { dispatcher, calls, logs, log: (m) => logs.push(m) };
}

async function run(body: string | Buffer, limits: RpcLimits = DEFAULT_RPC_LIMITS) {
  const f = fake();
  const out = await handleBody(body, f.dispatcher, meta, limits, f.log);
  return { out, parsed: out === undefined ? undefined : JSON.parse(out), ...f };
}

const req = (o: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...o });

describe('handleBody: envelope', () => {
  it('answers invalid JSON with a parse error and id null', async () => {
    for (const body of ['{', '', 'nope', '{"jsonrpc":"2.0",}']) {
      const { out } = await run(body);
      assert.equal(out, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}', body);
    }
  });

  it('survives invalid UTF-8', async () => {
    const bad = await run(Buffer.from([0xff, 0xfe, 0x7b]));
    assert.equal(bad.parsed.error.code, -32700);
    const inString = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"echo","params":["'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"]}'),
    ]);
    const r = await run(inString);
    assert.equal(r.parsed.result.params[0], '\uFFFD(');
  });

  it('keeps key order jsonrpc, id, result', async () => {
    const { out } = await run(req({ id: 7, method: 'echo', params: [1] }));
    assert.equal(out, '{"jsonrpc":"2.0","id":7,"result":{"method":"echo","params":[1]}}');
  });

  it('echoes number, string, null and zero ids', async () => {
    for (const id of [1, 0, -3, 1.5, 'abc', '', null]) {
      const { parsed } = await run(req({ id, method: 'echo' }));
      assert.deepEqual(parsed.id, id);
      assert.deepEqual(parsed.result, { method: 'echo', params: [] });
    }
  });

  it('rejects non-object messages with -32600 and id null', async () => {
    for (const body of ['42', '"x"', 'null', 'true']) {
      const { out } = await run(body);
      assert.equal(out, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}', body);
    }
  });

  it('rejects bad envelopes, echoing the id when the id itself is valid', async () => {
    const cases: Array<[string, unknown]> = [
      [JSON.stringify({ id: 1, method: 'echo' }), 1],
      [JSON.stringify({ jsonrpc: '1.0', id: 'a', method: 'echo' }), 'a'],
      [JSON.stringify({ jsonrpc: 2, id: 2, method: 'echo' }), 2],
      [req({ id: 3 }), 3],
      [req({ id: 4, method: 5 }), 4],
      [req({ id: 5, method: '' }), 5],
      [req({ id: null, method: ['echo'] }), null],
      [req({ id: { a: 1 }, method: 'echo' }), null],
      [req({ id: [1], method: 'echo' }), null],
      [req({ id: true, method: 'echo' }), null],
      [req({ method: 7 }), null],
    ];
    for (const [body, id] of cases) {
      const { parsed, calls } = await run(body);
      assert.deepEqual(parsed, { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } }, body);
      assert.deepEqual(calls, [], body);
    }
  });

  it('runs notifications without answering', async () => {
    const r = await run(req({ method: 'echo', params: [1] }));
    assert.equal(r.out, undefined);
    assert.deepEqual(r.calls, ['echo']);
    const failing = await run(req({ method: 'invalid' }));
    assert.equal(failing.out, undefined);
    const badParams = await run(req({ method: 'echo', params: { a: 1 } }));
    assert.equal(badParams.out, undefined);
    assert.deepEqual(badParams.calls, []);
  });

  it('treats absent or null params as [] and rejects non-array params', async () => {
    assert.deepEqual((await run(req({ id: 1, method: 'echo' }))).parsed.result.params, []);
    assert.deepEqual((await run(req({ id: 1, method: 'echo', params: null }))).parsed.result.params, []);
    for (const params of [{ a: 1 }, 'x', 3, true]) {
      const { out, calls } = await run(req({ id: 9, method: 'echo', params }));
      assert.equal(out, '{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"non-array args"}}');
      assert.deepEqual(calls, []);
    }
  });

  it('rejects a body above maxBodyBytes', async () => {
    const { parsed, calls } = await run(req({ id: 1, method: 'echo' }), { maxBodyBytes: 10, maxBatchItems: 5 });
    assert.equal(parsed.error.code, -32600);
    assert.match(parsed.error.message, /^content length too large \(\d+>10\)$/);
    assert.deepEqual(calls, []);
  });
});

describe('handleBody: results and errors', () => {
  it('serializes string results exactly as JSON.stringify does, whether quoted as they are or escaped', async () => {
    const texts = [
      '0x1bc16d674ec80000',
      '',
      'a"b',
      'a\\b',
      'line\nbreak',
      '\u0000\u001f',
      '\u007f',
      'é€',
      '\ud800',
      'x'.repeat(200),
    ];
    for (const text of texts) {
      for (const id of [1, -0, 1.5, 1e21, 'id"1', null]) {
        const { out } = await run(req({ id, method: 'text', params: [text] }));
        assert.equal(out, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(text)}}`);
      }
    }
  });

  it('quotes a PlainString result as it is, and answers at once when the method does', () => {
    const f = fake();
    const reply = handleBody(
      req({ id: 1, method: 'plain', params: ['0x1bc16d674ec80000'] }),
      f.dispatcher,
      meta,
      DEFAULT_RPC_LIMITS,
    );
    assert.equal(reply, '{"jsonrpc":"2.0","id":1,"result":"0x1bc16d674ec80000"}');
  });

  it('serializes an undefined result as null', async () => {
    assert.equal((await run(req({ id: 1, method: 'nothing' }))).out, '{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it('maps domain errors through toRpcError without logging', async () => {
    const r = await run(req({ id: 1, method: 'invalid' }));
    assert.equal(r.out, '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid argument 0: bad"}}');
    const nf = await run(req({ id: 2, method: 'nope' }));
    assert.deepEqual(nf.parsed.error, { code: -32601, message: 'the method nope does not exist/is not available' });
    const rv = await run(req({ id: 3, method: 'revert' }));
    assert.deepEqual(rv.parsed.error, { code: 3, message: 'execution reverted', data: '0xdead' });
    assert.deepEqual([...r.logs, ...nf.logs, ...rv.logs], []);
  });

  it('maps plain exceptions to -32000 and logs each once with its stack', async () => {
    for (const method of ['crash', 'syncCrash']) {
      const r = await run(req({ id: 1, method }));
      assert.equal(r.out, '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"method handler crashed"}}');
      assert.equal(r.logs.length, 1);
      assert.match(r.logs[0]!, new RegExp(`${method}.*\\n\\s+at `, 's'));
    }
  });

  it('answers -32603 when a result cannot be serialized', async () => {
    for (const method of ['bigint', 'fn']) {
      const r = await run(req({ id: 1, method }));
      assert.equal(r.out, '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}');
      assert.equal(r.logs.length, 1);
    }
  });
});

describe('handlerFailedReply', () => {
  it('logs the rejection with its stack and answers -32603 with id null, nothing of the cause on the wire', () => {
    const logs: string[] = [];
    const out = handlerFailedReply(new Error('secret detail'), (m) => logs.push(m));
    assert.equal(out, '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}');
    assert.equal(logs.length, 1);
    assert.match(logs[0]!, /^rpc: http handler failed: Error: secret detail\n\s+at /);
  });
});

describe('handleBody: batches', () => {
  it('answers in request order, omits notifications and isolates failures', async () => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'echo', params: ['a'] },
      { jsonrpc: '2.0', method: 'echo' },
      { jsonrpc: '2.0', id: 'two', method: 'invalid' },
      42,
      { jsonrpc: '2.0', id: 3, method: 'crash' },
      { jsonrpc: '2.0', id: 4, method: 'echo', params: {} },
      [],
      { jsonrpc: '2.0', id: null, method: 'echo' },
    ]);
    const { parsed, logs } = await run(body);
    assert.deepEqual(parsed, [
      { jsonrpc: '2.0', id: 1, result: { method: 'echo', params: ['a'] } },
      { jsonrpc: '2.0', id: 'two', error: { code: -32602, message: 'invalid argument 0: bad' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'method handler crashed' } },
      { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'non-array args' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: null, result: { method: 'echo', params: [] } },
    ]);
    assert.equal(logs.length, 1);
  });

  it('answers a batch of synchronous items at once, and mixes them with later answers in request order', async () => {
    const f = fake();
    const items = [
      { jsonrpc: '2.0', id: 1, method: 'plain', params: ['0x0'] },
      { jsonrpc: '2.0', method: 'plain', params: ['0x1'] },
      { jsonrpc: '2.0', id: 'b', method: 'plain', params: ['0x2'] },
      { jsonrpc: '2.0', id: 3, method: 'plain', params: {} },
      { jsonrpc: '1.0', id: 4, method: 'plain', params: ['0x4'] },
      { jsonrpc: '2.0', id: 5, method: 'syncCrash' },
    ];
    const reply = handleBody(JSON.stringify(items), f.dispatcher, meta, DEFAULT_RPC_LIMITS, f.log);
    assert.equal(
      reply,
      '[{"jsonrpc":"2.0","id":1,"result":"0x0"},{"jsonrpc":"2.0","id":"b","result":"0x2"},' +
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"non-array args"}},' +
        '{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"invalid request"}},' +
        '{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"method handler crashed"}}]',
    );
    assert.equal(f.logs.length, 1);
    const mixed = await run(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'echo', params: ['a'] },
        { jsonrpc: '2.0', id: 2, method: 'plain', params: ['0xab'] },
        { jsonrpc: '2.0', id: 3, method: 'text', params: ['0xcd'] },
      ]),
    );
    assert.equal(
      mixed.out,
      '[{"jsonrpc":"2.0","id":1,"result":{"method":"echo","params":["a"]}},' +
        '{"jsonrpc":"2.0","id":2,"result":"0xab"},{"jsonrpc":"2.0","id":3,"result":"0xcd"}]',
    );
  });

  it('runs batch items concurrently', { timeout: 2000 }, async () => {
    // 'wait' only finishes after 'release' ran; sequential execution would hang here.
    const { parsed } = await run(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'wait' },
        { jsonrpc: '2.0', id: 2, method: 'release' },
      ]),
    );
    assert.deepEqual(
      parsed.map((r: { result: unknown }) => r.result),
      ['waited', 'released'],
    );
  });

  it('answers an empty batch with a single error', async () => {
    assert.equal((await run('[]')).out, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
  });

  it('refuses a batch above maxBatchItems without running any item', async () => {
    const item = { jsonrpc: '2.0', id: 1, method: 'echo' };
    const over = await run(JSON.stringify(Array(1001).fill(item)));
    assert.equal(over.out, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}');
    assert.equal(over.calls.length, 0);
    const atLimit = await run(JSON.stringify(Array(1000).fill(item)));
    assert.equal(atLimit.parsed.length, 1000);
    const small = await run(JSON.stringify(Array(3).fill(item)), { maxBodyBytes: 1 << 20, maxBatchItems: 2 });
    assert.equal(small.parsed.error.message, 'batch too large');
  });

  it('returns undefined when every item is a notification', async () => {
    const r = await run(
      JSON.stringify([
        { jsonrpc: '2.0', method: 'echo' },
        { jsonrpc: '2.0', method: 'crash' },
      ]),
    );
    assert.equal(r.out, undefined);
    assert.deepEqual(r.calls, ['echo', 'crash']);
  });
});
