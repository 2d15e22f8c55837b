// Hostile input at the other doors: fast-check drives malformed traffic at the ABCI socket (random bytes, framed
// garbage, near-valid requests with random fields, broken framing), the CometBFT-compatible RPC (random methods and
// params over URI GETs and JSON-RPC POSTs, invalid JSON) and the gRPC port (random paths, headers and bodies,
// bad length prefixes, garbage before the HTTP/2 preface). Every probe must be answered or the connection closed
// within the timeout; the process must stay up, its RSS bounded, and normal requests answered throughout.
// PORTS_FUZZ_SEED replays a run; PORTS_FUZZ_SCALE multiplies the counts (1 in CI: 10,000 probes per door).
import assert from 'node:assert/strict';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Request, Response } from 'cosmjs-types/tendermint/abci/types';
import { encodeFrame, FrameDecoder } from '../../src/abci/framing.ts';
import { COSMOS_QUERY_SERVICES } from '../../src/grpc/query.ts';
import { freePort, post, printLogsOnFailure, rpcResult, startNode, type KestrelNode } from '../helpers/node.ts';
import { rssBytes } from './support.ts';

const SEED = Number(process.env.PORTS_FUZZ_SEED ?? 20261128);
const SCALE = Number(process.env.PORTS_FUZZ_SCALE ?? 1);
const PER_RUN = 20;
const RUNS = Math.ceil((10_000 * SCALE) / PER_RUN);
const TIMEOUT_MS = 10_000;
const RSS_GROWTH_BOUND = 256 * 1024 * 1024;

// ---- ABCI --------------------------------------------------------------------------------------------------------

const bytes = (max: number) => fc.uint8Array({ maxLength: max });
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('/store/acc/key', 'app/simulate', '/a/b', 'p2p/filter/id/x'),
);
const height = fc.oneof(
  fc.constantFrom(-1n, 0n, 1n, 1n << 62n),
  fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
);

/** Requests CometBFT may send on any connection, with random contents; none of them changes the chain. */
const nearValidRequest = fc.oneof(
  fc.record({ echo: fc.record({ message: fc.string({ maxLength: 200 }) }) }),
  fc.constant({ flush: {} }),
  fc.record({ info: fc.record({ version: text, blockVersion: height, p2pVersion: height, abciVersion: text }) }),
  fc.record({ query: fc.record({ data: bytes(300), path: text, height, prove: fc.boolean() }) }),
  fc.record({ checkTx: fc.record({ tx: bytes(2000), type: fc.integer({ min: -3, max: 5 }) }) }),
  fc.record({
    prepareProposal: fc.record({ txs: fc.array(bytes(300), { maxLength: 5 }), maxTxBytes: height, height }),
  }),
  fc.record({ processProposal: fc.record({ txs: fc.array(bytes(300), { maxLength: 5 }), height }) }),
  fc.constant({ listSnapshots: {} }),
  fc.record({ loadSnapshotChunk: fc.record({ height, format: fc.nat(), chunk: fc.nat() }) }),
);

/** One ABCI probe: the bytes to write, and whether the app may answer it (or must close the connection). */
type AbciProbe = { kind: string; bytes: Uint8Array };
const abciProbe: fc.Arbitrary<AbciProbe> = fc.oneof(
  {
    weight: 4,
    arbitrary: nearValidRequest.map((r) => ({ kind: 'near-valid', bytes: frame(Request.fromPartial(r as never)) })),
  },
  { weight: 2, arbitrary: bytes(200).map((b) => ({ kind: 'framed garbage', bytes: encodeFrame(b) })) },
  { weight: 1, arbitrary: bytes(64).map((b) => ({ kind: 'raw garbage', bytes: b })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      {
        kind: 'overlong varint',
        bytes: Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
      },
      { kind: 'length past the limit', bytes: Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x7f]) },
      { kind: 'truncated frame', bytes: Uint8Array.from([0x20, 0x0a, 0x02]) },
      { kind: 'unknown field', bytes: encodeFrame(Uint8Array.from([0xf8, 0x07, 0x01])) },
      { kind: 'empty frame', bytes: Uint8Array.from([0x00]) },
    ),
  },
);

function frame(req: Request): Uint8Array {
  return encodeFrame(Request.encode(req).finish());
}

/** Writes the probes on one connection; resolves once every answer came or the app closed it (never hangs). */
function abciSession(port: number, probes: AbciProbe[]): Promise<{ answers: number; closed: boolean }> {
  return new Promise((res, rej) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const decoder = new FrameDecoder(64 * 1024 * 1024);
    let answers = 0;
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      res({ answers, closed });
    };
    const timer = setTimeout(
      () =>
        rej(
          new Error(
            `ABCI: no answer and no close within ${TIMEOUT_MS} ms after ${probes.map((p) => p.kind).join(', ')}`,
          ),
        ),
      TIMEOUT_MS,
    );
    socket.on('data', (chunk) => {
      for (const f of decoder.push(chunk)) {
        Response.decode(f); // a well-formed Response, or the decode throws and fails the test
        answers++;
      }
      if (answers === probes.length) done(false);
    });
    socket.on('error', () => done(true));
    socket.on('close', () => done(true));
    socket.on('connect', () => {
      for (const p of probes) socket.write(p.bytes);
      // A truncated frame waits for more bytes: half-close so the app sees the end of the stream.
      socket.end();
    });
  });
}

/** An Echo on a fresh connection comes back: the ABCI server still serves. */
async function abciAlive(port: number): Promise<void> {
  const r = await abciSession(port, [
    { kind: 'echo', bytes: frame(Request.fromPartial({ echo: { message: 'alive' } })) },
  ]);
  assert.equal(r.answers, 1, 'the ABCI server answers an Echo on a new connection');
}

// ---- CometBFT-compatible RPC ---------------------------------------------------------------------------------------

const COMET_METHODS = ['health', 'status', 'abci_info', 'abci_query', 'block', 'broadcast_tx_sync'];
const scalar = fc.oneof(
  fc.constantFrom('', '0', '1', '-1', '0x1', '"1"', 'latest', '1e400', '9'.repeat(40), 'null', 'true', '%00', '\u0000'),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b).toString('base64')),
  fc.uint8Array({ maxLength: 100 }).map((b) => '0x' + Buffer.from(b).toString('hex')),
);
const paramValue = fc.oneof(
  { weight: 5, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 4 }),
  },
);
const cometParams = fc.dictionary(
  fc.oneof(fc.constantFrom('height', 'path', 'data', 'prove', 'tx', 'hash'), fc.string({ maxLength: 10 })),
  paramValue,
  { maxKeys: 4 },
);
const cometMethod = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...COMET_METHODS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);
type CometProbe = { kind: 'get'; path: string } | { kind: 'post'; body: string };
const cometProbe: fc.Arbitrary<CometProbe> = fc.oneof(
  fc.tuple(cometMethod, cometParams).map(([m, p]) => ({
    kind: 'get' as const,
    path: `/${encodeURIComponent(m)}?${Object.entries(p)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
      .join('&')}`,
  })),
  fc
    .tuple(
      cometMethod,
      fc.oneof(cometParams, fc.array(paramValue, { maxLength: 3 })),
      fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)),
    )
    .map(([method, params, id]) => ({
      kind: 'post' as const,
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    })),
  fc
    .oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{', '[]', '[{}]', 'null', '{"jsonrpc":"2.0","method":1}', '{"method":"status","params":"x"}'),
    )
    .map((body) => ({ kind: 'post' as const, body })),
);

async function cometRequest(base: string, p: CometProbe): Promise<void> {
  const what = p.kind === 'get' ? `GET ${p.path.slice(0, 200)}` : `POST ${p.body.slice(0, 200)}`;
  const res =
    p.kind === 'get' ? await getWithTimeout(base + p.path) : await post(base, p.body, { timeoutMs: TIMEOUT_MS });
  assert.ok(res.status >= 200 && res.status < 600, `${what}: HTTP ${res.status}`);
  // URL resolution turns '/.' and '/..' into '/'.
  if (p.kind === 'get' && /^\/(\.{1,2})?\?/.test(p.path)) {
    // The root lists the endpoints in plain text, as CometBFT's does.
    assert.match(res.text, /^Available endpoints:/, `${what}: ${res.text.slice(0, 200)}`);
    return;
  }
  let json: unknown;
  assert.doesNotThrow(
    () => (json = JSON.parse(res.text)),
    `${what}: the answer is not JSON: ${res.text.slice(0, 200)}`,
  );
  // A batch (a JSON array) gets an array of replies.
  const replies = (Array.isArray(json) ? json : [json]) as Array<{
    jsonrpc?: string;
    result?: unknown;
    error?: unknown;
  }>;
  for (const reply of replies) {
    assert.equal(reply.jsonrpc, '2.0', `${what}: ${res.text.slice(0, 200)}`);
    const one = (reply.result === undefined) !== (reply.error === undefined);
    assert.ok(one, `${what}: result xor error: ${res.text.slice(0, 200)}`);
  }
}

async function getWithTimeout(url: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: r.status, text: await r.text() };
}

// ---- gRPC ----------------------------------------------------------------------------------------------------------

const GRPC_PATHS = COSMOS_QUERY_SERVICES.flatMap((s) => s.methods.map((m) => `/${s.name}/${m}`));
type GrpcProbe = { path: string; contentType: string; body: Uint8Array };
const grpcProbe: fc.Arbitrary<GrpcProbe> = fc.record({
  path: fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...GRPC_PATHS) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('/', '/x', '/cosmos.bank.v1beta1.Query/', '//', '/grpc.health.v1.Health/Check'),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => '/' + encodeURIComponent(s)) },
  ),
  contentType: fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/grpc') },
    { weight: 1, arbitrary: fc.constantFrom('application/grpc+proto', 'text/plain', 'application/json') },
  ),
  body: fc.oneof(
    // A well-framed message of random protobuf bytes.
    bytes(300).map((b) => Uint8Array.from([0, ...u32(b.length), ...b])),
    // The compressed flag without a negotiated encoding, a length that lies, or no prefix at all.
    bytes(100).map((b) => Uint8Array.from([1, ...u32(b.length), ...b])),
    fc.tuple(bytes(100), fc.nat({ max: 1 << 30 })).map(([b, n]) => Uint8Array.from([0, ...u32(n), ...b])),
    bytes(8),
  ),
});

function u32(n: number): number[] {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
}

/** Sends one gRPC call on the session; resolves with the grpc-status (or the HTTP status) once the stream ends. */
function grpcCall(session: ClientHttp2Session, p: GrpcProbe): Promise<string> {
  return new Promise((res, rej) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': p.path,
      'content-type': p.contentType,
      te: 'trailers',
    });
    let status = '';
    const timer = setTimeout(() => {
      stream.close();
      rej(new Error(`gRPC ${p.path}: no end within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    stream.on('response', (h) => (status = String(h['grpc-status'] ?? `http ${h[':status']}`)));
    stream.on('trailers', (h) => (status = String(h['grpc-status'] ?? status)));
    stream.on('data', () => {});
    stream.on('error', () => {
      clearTimeout(timer);
      res(status || 'stream reset');
    });
    stream.on('close', () => {
      clearTimeout(timer);
      res(status || 'closed');
    });
    stream.end(p.body);
  });
}

/** Raw bytes at the gRPC port that are not HTTP/2: the server must close the connection, not hang. */
function rawProbe(hostPort: string, data: Uint8Array): Promise<void> {
  const [host, port] = hostPort.split(':');
  return new Promise((res, rej) => {
    const s = connect(Number(port), host);
    const timer = setTimeout(() => {
      s.destroy();
      rej(new Error(`gRPC port: ${data.length} garbage bytes neither answered nor closed within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    const finish = () => {
      clearTimeout(timer);
      s.destroy();
      res();
    };
    s.on('connect', () => s.write(data));
    s.on('data', finish);
    s.on('close', finish);
    s.on('error', finish);
  });
}

// ---- the runs ------------------------------------------------------------------------------------------------------

async function alive(node: KestrelNode, dev: boolean): Promise<void> {
  assert.equal(node.proc.exitCode, null, 'the node is running');
  await rpcResult(node.http, 'eth_blockNumber');
  if (dev) {
    const s = await getWithTimeout(`${node.comet}/status`);
    assert.equal(s.status, 200);
  }
}

describe('hostile input at the ABCI, CometBFT RPC and gRPC ports', { timeout: 900_000 * Math.max(1, SCALE) }, () => {
  let dev: KestrelNode;
  let app: KestrelNode;
  let abciPort = 0;
  const counts = { abci: 0, abciClosed: 0, comet: 0, grpc: 0, raw: 0 };
  const rss = { dev: 0, app: 0 };

  before(async () => {
    dev = await startNode();
    abciPort = await freePort();
    // Network mode with no CometBFT attached: the ABCI socket listens, JSON-RPC serves reads.
    app = await startNode({
      args: [
        '--consensus',
        'cometbft',
        '--abci.laddr',
        `tcp://127.0.0.1:${abciPort}`,
        '--comet.rpc',
        `tcp://127.0.0.1:${await freePort()}`,
      ],
    });
    await abciAlive(abciPort);
    rss.dev = rssBytes(dev.proc.pid!);
    rss.app = rssBytes(app.proc.pid!);
  });
  afterEach(printLogsOnFailure(() => dev));
  afterEach(printLogsOnFailure(() => app));
  after(async () => {
    console.log(
      `# ports fuzz: seed ${SEED}; ABCI ${counts.abci} probes (${counts.abciClosed} connections closed by the app), ` +
        `CometBFT RPC ${counts.comet}, gRPC ${counts.grpc} calls + ${counts.raw} raw probes`,
    );
    await dev?.dispose();
    await app?.dispose();
  });

  it(`ABCI socket: ${10_000 * SCALE}+ malformed and near-valid frames; every connection answered or closed, Echo still served`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(abciProbe, { minLength: 1, maxLength: PER_RUN }), async (probes) => {
        const r = await abciSession(abciPort, probes);
        counts.abci += probes.length;
        if (r.closed) counts.abciClosed++;
        await abciAlive(abciPort);
      }),
      // 1..20 probes a connection, about 6 on average (fast-check favours short arrays): at least 10,000 × SCALE.
      { seed: SEED, numRuns: Math.ceil((10_000 * SCALE) / 5) },
    );
    assert.ok(counts.abci >= 10_000 * SCALE, `${counts.abci} ABCI probes`);
    await alive(app, false);
  });

  it(`CometBFT-compatible RPC: ${RUNS * PER_RUN} random requests each get a JSON-RPC answer`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cometProbe, { minLength: PER_RUN, maxLength: PER_RUN }), async (probes) => {
        await Promise.all(probes.map((p) => cometRequest(dev.comet, p)));
        counts.comet += probes.length;
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
    await alive(dev, true);
  });

  it(`gRPC: ${RUNS * PER_RUN} malformed calls each end with a status; garbage before the preface is closed`, async () => {
    const session = h2connect(`http://${dev.grpc}`);
    session.on('error', () => {});
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(grpcProbe, { minLength: PER_RUN, maxLength: PER_RUN }), async (probes) => {
          const statuses = await Promise.all(probes.map((p) => grpcCall(session, p)));
          for (const s of statuses) assert.ok(s !== '', 'a status');
          counts.grpc += probes.length;
        }),
        { seed: SEED + 2, numRuns: RUNS },
      );
    } finally {
      session.close();
    }
    await fc.assert(
      fc.asyncProperty(bytes(300), async (b) => {
        await rawProbe(dev.grpc, b.length === 0 ? Uint8Array.of(0) : b);
        counts.raw++;
      }),
      { seed: SEED + 3, numRuns: 200 * SCALE },
    );
    await alive(dev, true);
  });

  it('both processes survived and their RSS stayed bounded', async () => {
    for (const [name, n] of [
      ['dev', dev],
      ['app', app],
    ] as const) {
      await alive(n, name === 'dev');
      const grown = rssBytes(n.proc.pid!) - rss[name];
      assert.ok(grown < RSS_GROWTH_BOUND, `${name} RSS grew ${(grown / 2 ** 20).toFixed(0)} MiB`);
    }
  });
});
