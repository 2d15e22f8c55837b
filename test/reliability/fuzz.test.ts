// Hostile input: a fast-check fuzzer sends generated JSON-RPC traffic over HTTP and WebSocket — random JSON, real
// and near-miss method names with valid and invalid params of every type, boundary quantities, huge arrays, deep
// nesting, odd ids, batches, invalid UTF-8 — and requires a well-formed JSON-RPC answer to every request. Then
// transport-level abuse: oversize and slow-drip bodies, half-open sockets, WS frames of every kind. The node
// must never crash and its RSS must stay bounded over the run.
// FUZZ_SEED (default fixed, printed) replays a run; FUZZ_RUNS scales it (each run sends FUZZ_PER_RUN requests).
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import fc from 'fast-check';
import WebSocket from 'ws';
import { debugNamespace } from '../../src/rpc/namespaces/debug/index.ts';
import { ethNamespace } from '../../src/rpc/namespaces/eth/index.ts';
import { minerNamespace } from '../../src/rpc/namespaces/miner/index.ts';
import { netNamespace } from '../../src/rpc/namespaces/net/index.ts';
import { personalNamespace } from '../../src/rpc/namespaces/personal/index.ts';
import { txpoolNamespace } from '../../src/rpc/namespaces/txpool/index.ts';
import { web3Namespace } from '../../src/rpc/namespaces/web3/index.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, post, postRaw, printLogsOnFailure, rpc, sleep, startNode } from '../helpers/node.ts';
import { rssBytes } from './support.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const PER_RUN = 10;
const HTTP_RUNS = Number(process.env.FUZZ_RUNS ?? 700);
const WS_RUNS = Math.ceil((HTTP_RUNS * 3) / 7);
const RSS_GROWTH_BOUND = 256 * 1024 * 1024;

const METHODS = [
  ethNamespace,
  netNamespace,
  web3Namespace,
  txpoolNamespace,
  debugNamespace,
  personalNamespace,
  minerNamespace,
]
  .flat()
  .map((m) => m.name);

// ---- generators -------------------------------------------------------------------------------------------------

const MAX = (1n << 256n) - 1n;
const quantity = fc.oneof(
  fc.constantFrom(
    '0x0',
    '0x',
    '0x00',
    '0x01',
    '0X1',
    '0x-1',
    '-0x1',
    '0xg',
    '0',
    '1',
    '',
    '0x' + MAX.toString(16),
    '0x1' + '0'.repeat(64),
    '0x' + '0'.repeat(70) + '1',
    '0x' + 'f'.repeat(200),
    'latest',
    'earliest',
    'pending',
    'safe',
    'finalized',
    'LATEST',
    ' latest',
    '0x7fffffffffffffff',
    '0xffffffffffffffff',
  ),
  fc.bigInt({ min: 0n, max: MAX }).map((n) => '0x' + n.toString(16)),
  fc.bigInt({ min: 0n, max: 1n << 300n }).map((n) => '0x' + n.toString(16)),
  fc.integer({ min: 0, max: 1000 }).map((n) => '0x' + n.toString(16)),
);
const hexData = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => '0x' + Buffer.from(b).toString('hex'));
const address = fc.oneof(
  fc.constantFrom(
    ...DEV_ACCOUNTS.map((a) => a.address),
    '0x0000000000000000000000000000000000000000',
    '0x' + 'ff'.repeat(20),
  ),
  hexData(20, 20),
  hexData(0, 40),
);
const hash = fc.oneof(hexData(32, 32), hexData(0, 64));
const number = fc.oneof(
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53, 2 ** 64, 0.5, Number.MAX_SAFE_INTEGER + 2),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const str = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('\u0000', '\ud800', '\uffff', 'x'.repeat(10_000)),
);
const blockRef = fc.oneof(
  quantity,
  fc.record({ blockHash: hash }, { requiredKeys: [] }),
  fc.record({ blockNumber: quantity, requireCanonical: fc.boolean() }, { requiredKeys: [] }),
);
const callObject = fc.record(
  {
    from: address,
    to: fc.oneof(address, fc.constant(null)),
    gas: quantity,
    gasPrice: quantity,
    maxFeePerGas: quantity,
    maxPriorityFeePerGas: quantity,
    value: quantity,
    data: hexData(0, 200),
    input: hexData(0, 200),
    nonce: quantity,
    type: quantity,
    chainId: quantity,
    accessList: fc.array(fc.record({ address, storageKeys: fc.array(hash, { maxLength: 3 }) }), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);
const filterObject = fc.record(
  {
    fromBlock: quantity,
    toBlock: quantity,
    blockHash: hash,
    address: fc.oneof(address, fc.array(address, { maxLength: 5 })),
    topics: fc.array(fc.oneof(fc.constant(null), hash, fc.array(fc.oneof(hash, fc.constant(null)), { maxLength: 4 })), {
      maxLength: 6,
    }),
  },
  { requiredKeys: [] },
);
const tracerConfig = fc.record(
  {
    tracer: fc.oneof(
      fc.constantFrom(
        'callTracer',
        'prestateTracer',
        '4byteTracer',
        'noopTracer',
        'muxTracer',
        '{}',
        '{result: function() { return 1 }, fault: function() {}}',
      ),
      str,
    ),
    timeout: fc.oneof(fc.constantFrom('1s', '0s', '-1s', '100ms', 'x', '1h'), str),
    tracerConfig: fc.anything({ maxDepth: 2 }),
    disableStorage: fc.boolean(),
    enableMemory: fc.boolean(),
  },
  { requiredKeys: [] },
);
/** A value too big or deep to print in a counterexample: serializes in full, prints as a short description. */
class Bulky {
  constructor(
    private readonly label: string,
    private readonly make: () => unknown,
  ) {}
  toJSON(): unknown {
    return this.make();
  }
  [fc.toStringMethod](): string {
    return this.label;
  }
}
const deep = (depth: number) =>
  fc.constant(new Bulky(`<${depth} nested arrays>`, () => JSON.parse('['.repeat(depth) + ']'.repeat(depth))));
const hugeArray = (n: number) => fc.constant(new Bulky(`<array of ${n} "0x1">`, () => new Array(n).fill('0x1')));

const param = fc.oneof(
  { weight: 4, arbitrary: quantity },
  { weight: 2, arbitrary: address },
  { weight: 2, arbitrary: hash },
  { weight: 2, arbitrary: hexData(0, 300) },
  { weight: 2, arbitrary: callObject },
  { weight: 2, arbitrary: filterObject },
  { weight: 1, arbitrary: blockRef },
  { weight: 1, arbitrary: tracerConfig },
  { weight: 2, arbitrary: number },
  { weight: 2, arbitrary: str },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).chain(hugeArray) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 1500 }).chain(deep) },
);
const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 1, arbitrary: fc.constantFrom(...METHODS).map((m) => m.toUpperCase()) },
  { weight: 1, arbitrary: fc.constantFrom(...METHODS).chain((m) => fc.string({ maxLength: 4 }).map((s) => m + s)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'rpc_modules',
      'admin_peers',
      'engine_newPayloadV1',
      'eth_',
      '_',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'eth_subscribe',
      'eth_unsubscribe',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);
const id = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 1e9 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 'x', '', -1, 1.5, 1e300, 2 ** 64) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 20 }), fc.constant({}), fc.constant([]), fc.boolean()) },
);
const envelope = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id, method, params: fc.array(param, { maxLength: 4 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2, null),
        id,
        method,
        params: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.array(param, { maxLength: 3 })),
      },
      { requiredKeys: ['method'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), method, params: fc.array(param, { maxLength: 2 }) }),
  }, // notification
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
/** One request body: a single envelope, a batch, or bytes that are not JSON at all. */
type Body = { kind: 'json'; value: unknown } | { kind: 'bytes'; value: Uint8Array };
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 14, arbitrary: envelope.map((value): Body => ({ kind: 'json', value })) },
  {
    weight: 3,
    arbitrary: fc.array(envelope, { minLength: 0, maxLength: 20 }).map((value): Body => ({ kind: 'json', value })),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((value): Body => ({ kind: 'bytes', value })) },
  {
    weight: 1,
    arbitrary: envelope.map((v): Body => {
      // A valid request with invalid UTF-8 spliced into a string (lone continuation bytes, overlong encodings).
      const text = Buffer.from(JSON.stringify(v));
      const at = Math.max(1, text.indexOf('"', 1) + 1);
      return {
        kind: 'bytes',
        value: Buffer.concat([text.subarray(0, at), Buffer.from([0x80, 0xc0, 0xaf, 0xff, 0xfe]), text.subarray(at)]),
      };
    }),
  },
);

// ---- response checks --------------------------------------------------------------------------------------------

function wellFormed(r: unknown): string | undefined {
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return 'not an object';
  const o = r as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (!Object.hasOwn(o, 'id')) return 'no id';
  const hasResult = Object.hasOwn(o, 'result');
  const hasError = Object.hasOwn(o, 'error');
  if (hasResult === hasError) return 'needs exactly one of result and error';
  if (hasError) {
    const e = o.error as Record<string, unknown>;
    if (e === null || typeof e !== 'object') return 'error is not an object';
    if (!Number.isInteger(e.code)) return 'error.code is not an integer';
    if (typeof e.message !== 'string' || e.message === '') return 'error.message is not a non-empty string';
    if (e.code === -32603) return `internal error: ${e.message}`; // a crash inside a handler, not an answer
  }
  return undefined;
}

const isNote = (e: unknown) =>
  e !== null &&
  typeof e === 'object' &&
  !Array.isArray(e) &&
  !Object.hasOwn(e, 'id') &&
  (e as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
  typeof (e as { method?: unknown }).method === 'string' &&
  (e as { method: string }).method !== '';

/** True when JSON-RPC says nothing is answered: a notification, or a non-empty batch of only notifications. */
function notificationsOnly(b: Body): boolean {
  return (
    b.kind === 'json' && (isNote(b.value) || (Array.isArray(b.value) && b.value.length > 0 && b.value.every(isNote)))
  );
}

/** Whether the node will see a batch: a JSON array, also after invalid UTF-8 decodes to U+FFFD. */
function isBatch(b: Body): boolean {
  if (b.kind === 'json') return Array.isArray(b.value);
  try {
    return Array.isArray(JSON.parse(Buffer.from(b.value).toString('utf8')));
  } catch {
    return false;
  }
}

/** Checks the reply text to one body; returns a description of what is wrong, or undefined. */
function checkReply(b: Body, text: string): string | undefined {
  let parsed: unknown;
  if (text === '') return notificationsOnly(b) ? undefined : 'empty reply to a request that needs one';
  try {
    parsed = JSON.parse(text);
  } catch {
    return `reply is not JSON: ${text.slice(0, 200)}`;
  }
  if (Array.isArray(parsed)) {
    if (!isBatch(b)) return 'array reply to a non-batch';
    for (const item of parsed) {
      const bad = wellFormed(item);
      if (bad) return `batch item: ${bad}`;
    }
    return undefined;
  }
  return wellFormed(parsed);
}

const encode = (b: Body): Uint8Array | string => (b.kind === 'json' ? JSON.stringify(b.value) : b.value);
const describeBody = (b: Body) => {
  const s = b.kind === 'json' ? JSON.stringify(b.value) : `bytes ${Buffer.from(b.value).toString('hex')}`;
  return s.length > 600 ? s.slice(0, 600) + '…' : s;
};

/** Runs a property; on failure throws with the shrunk counterexample and the assertion that failed. */
async function checkProperty<T>(prop: fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<void> {
  const out = await fc.check(prop, params);
  if (!out.failed) return;
  const why = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  throw new Error(`property failed (seed ${out.seed}, path "${out.counterexamplePath}"):\n${why.slice(0, 2000)}`);
}

// ---- the tests --------------------------------------------------------------------------------------------------

describe('hostile input', { timeout: 300_000 * Math.max(1, HTTP_RUNS / 700) }, () => {
  let node: KestrelNode;
  let rssStart = 0;
  const counts = { http: 0, ws: 0, transport: 0 };

  before(async () => {
    node = await startNode({ args: ['--json-rpc.ws-subscription-buffer-bytes', '1048576'] });
    // Warm up the paths the fuzzer will hit so the RSS baseline is not the cold process.
    for (const m of ['eth_blockNumber', 'eth_getBlockByNumber', 'eth_call', 'debug_traceCall'])
      await rpc(node.http, m, ['latest']);
    rssStart = rssBytes(node.proc.pid!);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    const rssEnd = node?.proc.exitCode === null ? rssBytes(node.proc.pid!) : 0;
    console.log(
      `# fuzz: seed ${SEED}; sent ${counts.http} HTTP + ${counts.ws} WS generated requests, ${counts.transport} transport-level probes; ` +
        `RSS ${(rssStart / 2 ** 20).toFixed(0)} MiB → ${(rssEnd / 2 ** 20).toFixed(0)} MiB`,
    );
    await node?.dispose();
  });

  it(`HTTP: ${HTTP_RUNS * PER_RUN} generated requests each get a well-formed answer (seed ${SEED})`, async () => {
    console.log(`# fuzz: seed ${SEED} (set FUZZ_SEED to replay)`);
    await checkProperty(
      fc.asyncProperty(fc.array(body, { minLength: PER_RUN, maxLength: PER_RUN }), async (bodies) => {
        await Promise.all(
          bodies.map(async (b) => {
            counts.http++;
            const res = await post(node.http, encode(b), { timeoutMs: 30_000 });
            assert.equal(res.status, 200, `HTTP ${res.status} for ${describeBody(b)}: ${res.text.slice(0, 200)}`);
            const bad = checkReply(b, res.text);
            assert.equal(bad, undefined, `${bad} — request ${describeBody(b)} — reply ${res.text.slice(0, 300)}`);
          }),
        );
      }),
      { seed: SEED, numRuns: HTTP_RUNS },
    );
    assert.equal(node.proc.exitCode, null, 'the node is still running');
  });

  it(`WS: ${WS_RUNS * PER_RUN} generated text and binary frames each get a well-formed answer`, async () => {
    const sock = new WebSocket(node.ws);
    await new Promise<void>((res, rej) => {
      sock.once('open', () => res());
      sock.once('error', rej);
    });
    // A body that needs an answer waits for exactly one message; a notification-only body is followed by a
    // sentinel request whose answer must be the next message (so a stray answer to a notification shows up).
    const inbox: string[] = [];
    let wake: (() => void) | undefined;
    sock.on('message', (d) => {
      const text = d.toString();
      if (text.includes('"method":"eth_subscription"')) return; // pushes from subscriptions the fuzzer opened
      inbox.push(text);
      wake?.();
    });
    const next = async (what: string): Promise<string> => {
      const deadline = Date.now() + 30_000;
      while (inbox.length === 0) {
        if (Date.now() > deadline) throw new Error(`no WS reply within 30 s to ${what}`);
        await new Promise<void>((res) => {
          wake = res;
          setTimeout(res, 200);
        });
      }
      return inbox.shift()!;
    };
    try {
      await checkProperty(
        fc.asyncProperty(
          fc.array(body, { minLength: PER_RUN, maxLength: PER_RUN }),
          fc.boolean(),
          async (bodies, binary) => {
            for (const b of bodies) {
              counts.ws++;
              const data = encode(b);
              sock.send(typeof data === 'string' && binary ? Buffer.from(data) : data, {
                binary: binary || typeof data !== 'string',
              });
              if (notificationsOnly(b)) {
                sock.send(JSON.stringify({ jsonrpc: '2.0', id: 'sentinel', method: 'eth_chainId', params: [] }));
                const got = await next(describeBody(b));
                assert.match(
                  got,
                  /"id":"sentinel"/,
                  `a notification got an answer: ${describeBody(b)} → ${got.slice(0, 300)}`,
                );
              } else {
                const got = await next(describeBody(b));
                const bad = checkReply(b, got);
                assert.equal(bad, undefined, `${bad} — frame ${describeBody(b)} — reply ${got.slice(0, 300)}`);
              }
              assert.equal(sock.readyState, WebSocket.OPEN, `the node closed the socket after ${describeBody(b)}`);
            }
          },
        ),
        { seed: SEED + 1, numRuns: WS_RUNS },
      );
    } finally {
      sock.terminate();
    }
    assert.equal(node.proc.exitCode, null, 'the node is still running');
  });

  it('invalid UTF-8, oversize and chunked-oversize bodies get the right answer', async () => {
    counts.transport += 4;
    const r1 = await post(node.http, Buffer.from([0xff, 0xfe, 0x7b, 0x80]));
    assert.equal((r1.json as any)?.error?.code, -32700);
    const big = Buffer.alloc(6 * 1024 * 1024, 0x20);
    // The node answers 413 and resets the upload; on a loaded machine the reset can beat the answer, so a try that
    // sees no response at all is repeated (what matters is that any answer is 413 and the node stays up).
    const status413 = async (chunked: boolean) => {
      for (let i = 0; ; i++) {
        try {
          return (await postRaw(node.http, big, { chunked })).status;
        } catch (e) {
          if (i === 2) throw e;
        }
      }
    };
    assert.equal(await status413(false), 413);
    assert.equal(await status413(true), 413);
    // Nesting far deeper than any parser's recursion: built as text, answered (parse error or invalid params).
    for (const depth of [10_000, 100_000, 1_000_000]) {
      const text = `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[${'['.repeat(depth)}${']'.repeat(depth)}]}`;
      const r = await post(node.http, text);
      assert.equal(r.status, 200);
      assert.ok([-32700, -32602].includes((r.json as any)?.error?.code), `depth ${depth}: ${r.text.slice(0, 200)}`);
      counts.transport++;
    }
    const huge = await post(
      node.http,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: new Array(400_000).fill(0) }),
    );
    assert.ok(
      huge.status === 200 && (huge.json as any).error,
      `huge params array: ${huge.status} ${huge.text.slice(0, 200)}`,
    );
  });

  it('WS frames of every kind: ping, fragmented, oversize, empty, close codes; the node keeps serving', async () => {
    const open = async () => {
      const s = new WebSocket(node.ws);
      await new Promise<void>((res, rej) => {
        s.once('open', () => res());
        s.once('error', rej);
      });
      s.on('error', () => {});
      return s;
    };
    const nextMessage = (s: WebSocket) =>
      new Promise<string>((res, rej) => {
        const t = setTimeout(() => rej(new Error('no message')), 10_000);
        s.once('message', (d) => {
          clearTimeout(t);
          res(d.toString());
        });
      });
    // ping → pong
    const a = await open();
    const pong = new Promise<Buffer>((res) => a.once('pong', res));
    a.ping(Buffer.from('hello'));
    assert.equal((await pong).toString(), 'hello');
    counts.transport++;
    // fragmented text message: three frames, one request
    const msg = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] });
    const reply = nextMessage(a);
    a.send(msg.slice(0, 10), { fin: false });
    a.send(msg.slice(10, 20), { fin: false });
    a.send(msg.slice(20), { fin: true });
    assert.equal(JSON.parse(await reply).id, 7);
    counts.transport++;
    // empty text frame → parse error
    const empty = nextMessage(a);
    a.send('');
    assert.equal(JSON.parse(await empty).error.code, -32700);
    counts.transport++;
    // oversize message (over max-body-bytes) → the node drops the connection, and keeps serving
    const closed = new Promise<number>((res) => a.once('close', (code) => res(code)));
    a.send(Buffer.alloc(6 * 1024 * 1024, 0x20));
    // 1009 when the close frame arrives; 1006 when the node's reset beats it (the upload was still being sent).
    assert.ok([1006, 1009].includes(await closed));
    counts.transport++;
    // every close code a client may send, and a raw close with an invalid code / bad UTF-8 reason
    for (const code of [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4999]) {
      const s = await open();
      const done = new Promise<void>((res) => s.once('close', () => res()));
      s.close(code, 'bye');
      await done;
      counts.transport++;
    }
    for (const frame of [
      Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe7]), // close, masked, code 999 (invalid)
      Buffer.from([0x88, 0x84, 0, 0, 0, 0, 0x03, 0xe8, 0xc0, 0xaf]), // close 1000 with invalid UTF-8 reason
      Buffer.from([0x8f, 0x80, 0, 0, 0, 0]), // reserved opcode 0xF
      Buffer.from([0xc1, 0x80, 0, 0, 0, 0]), // RSV1 set without an extension
      Buffer.from([0x01, 0x80, 0, 0, 0, 0, 0x01, 0x80, 0, 0, 0, 0]), // new message inside an unfinished fragment
      // unmasked client frame: ws closes; uWebSockets.js does not check the mask bit (RFC 6455 asks the server to
      // close; the mask protects intermediaries' caches, not the server), so only the node back end is held to it.
      ...(/JSON-RPC transport: uws/.test(node.logs()) ? [] : [Buffer.from([0x81, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f])]),
      Buffer.from([0x89, 0xfe, 0x00, 0x80, 0, 0, 0, 0]), // ping longer than 125 bytes
      Buffer.from([0x81, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]), // 2^63-byte length
    ]) {
      await rawWsFrame(node.ws, frame);
      counts.transport++;
    }
    // binary frame carrying a request is served like text
    const b = await open();
    const bin = nextMessage(b);
    b.send(Buffer.from(msg), { binary: true });
    assert.equal(JSON.parse(await bin).id, 7);
    b.terminate();
    counts.transport++;
    assert.equal((await rpc(node.http, 'eth_chainId')).result, '0x2328');
  });

  it('slow-drip bodies and half-open sockets are cut off by the timeouts; other clients keep being served', async () => {
    // A node with short timeouts so the test is quick; it proves the bound, the default is 30 s.
    const slow = await startNode({ args: ['--json-rpc.http-timeout', '2s'] });
    try {
      const port = Number(new URL(slow.http).port);
      const sockets: Socket[] = [];
      const closedAt: number[] = [];
      const t0 = Date.now();
      for (let i = 0; i < 40; i++) {
        const s = connect(port, '127.0.0.1');
        s.on('error', () => {});
        s.resume(); // read (and discard) the node's 408/400, so 'close' is seen when the node hangs up
        s.on('close', () => closedAt.push(Date.now() - t0));
        sockets.push(s);
        if (i % 2 === 0) {
          // slowloris: valid headers, then a body one byte at a time
          s.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
          const drip = setInterval(() => (s.destroyed ? clearInterval(drip) : s.write(' ')), 200);
          s.on('close', () => clearInterval(drip));
        } else {
          // half-open: a partial request line, then nothing (and our write side shut)
          s.write('POST / HTTP/1.1\r\nHost: x\r\n');
          s.end();
        }
      }
      // While they hang, another client is served promptly.
      for (let i = 0; i < 10; i++) {
        const r = await rpc(slow.http, 'eth_blockNumber', [], { timeoutMs: 5_000 });
        assert.ok(typeof r.result === 'string');
        await sleep(100);
      }
      await sleep(5_000);
      assert.equal(
        closedAt.length,
        sockets.length,
        `every slow socket was closed by the node (${closedAt.length}/${sockets.length})`,
      );
      assert.ok(
        Math.max(...closedAt) < 10_000,
        `slow sockets closed within the timeout plus slack (latest ${Math.max(...closedAt)} ms)`,
      );
      counts.transport += sockets.length;
    } finally {
      await slow.dispose();
    }
  });

  it('the process survived the whole run and its RSS stayed bounded', async () => {
    assert.equal(node.proc.exitCode, null, 'still running');
    const rssEnd = rssBytes(node.proc.pid!);
    assert.ok(
      rssEnd - rssStart < RSS_GROWTH_BOUND,
      `RSS grew ${((rssEnd - rssStart) / 2 ** 20).toFixed(0)} MiB (bound ${RSS_GROWTH_BOUND / 2 ** 20} MiB)`,
    );
    assert.doesNotMatch(node.logs(), /method handler crashed|unexpected transport failure|uncaught|unhandled/i);
  });
});

/** Opens a WebSocket by hand, sends one raw frame, and waits until the node closes the connection (≤ 10 s). */
async function rawWsFrame(wsUrl: string, frame: Buffer): Promise<void> {
  const u = new URL(wsUrl);
  const s = connect(Number(u.port), u.hostname);
  s.on('error', () => {});
  await new Promise<void>((res) => s.once('connect', () => res()));
  const upgraded = new Promise<void>((res) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('latin1');
      if (buf.includes('\r\n\r\n')) {
        s.off('data', onData);
        res();
      }
    };
    s.on('data', onData);
  });
  s.write(
    `GET / HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  await upgraded;
  const closed = new Promise<void>((res) => s.once('close', () => res()));
  s.write(frame);
  let timedOut = false;
  const t = setTimeout(() => {
    timedOut = true;
    s.destroy();
  }, 10_000);
  await closed;
  clearTimeout(t);
  assert.equal(timedOut, false, `the node did not close the connection after the bad frame ${frame.toString('hex')}`);
}
