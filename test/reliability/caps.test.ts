// Resource bounds: every cap in [json-rpc] is set low in app.toml, one client drives each past its cap and gets a
// clear error, while a second client on its own connection keeps getting eth_blockNumber answers promptly.
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { initHome } from '../../src/node/home.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { deployEmitter, emitManyData } from '../helpers/emitter.ts';
import {
  type KestrelNode,
  post,
  postRaw,
  printLogsOnFailure,
  rpc,
  sleep,
  startNode,
  waitFor,
} from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';
import { batch, hex } from './support.ts';

const CAPS: Record<string, string> = {
  'max-open-connections': '24',
  'ws-subscriptions-per-connection': '5',
  'filter-cap': '10',
  'batch-request-limit': '20',
  'max-response-bytes': '200000',
  'max-body-bytes': '100000',
  'gas-cap': '3000000',
  'evm-timeout': '"1s"',
  'logs-cap': '50',
  'block-range-cap': '20',
  'tracer-timeout-cap': '"2s"',
  'tracer-memory': '16777216',
};
// Create-context code: JUMPDEST; PUSH1 0; JUMP — an endless loop.
const ENDLESS = '0x5b600056';
// Generous: the CI machine is shared and often heavily loaded; a node that stopped serving would miss it by far.
const PROBE_BOUND_MS = 10_000;

/**
 * A second client with its own keep-alive connection that asks eth_blockNumber every 100 ms while `fn` runs; fails
 * if any answer is an error or takes longer than `boundMs`. Returns fn's value and the probe's worst latency.
 */
async function whileProbing<T>(
  url: string,
  fn: () => Promise<T>,
  boundMs = PROBE_BOUND_MS,
): Promise<{ value: T; worstMs: number; probes: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ask = () =>
    new Promise<number>((res, rej) => {
      const t0 = Date.now();
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' }, timeout: boundMs },
        (r) => {
          let body = '';
          r.on('data', (d) => (body += d));
          r.on('end', () => {
            const j = JSON.parse(body) as { result?: string };
            if (typeof j.result !== 'string') rej(new Error(`probe got ${body}`));
            else res(Date.now() - t0);
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`probe took over ${boundMs} ms`)));
      req.on('error', rej);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }));
    });
  await ask(); // the probe's connection exists before the hog starts
  let stop = false;
  let worstMs = 0;
  let probes = 0;
  let failure: unknown;
  const loop = (async () => {
    while (!stop && failure === undefined) {
      try {
        worstMs = Math.max(worstMs, await ask());
      } catch (e) {
        failure = e;
      }
      probes++;
      await sleep(100);
    }
  })();
  try {
    const value = await fn();
    await sleep(200);
    stop = true;
    await loop;
    if (failure !== undefined) throw failure;
    return { value, worstMs, probes };
  } finally {
    stop = true;
    await loop;
    agent.destroy();
  }
}

/** 'connected', or the error code of a plain TCP connect to the port. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('resource caps', { timeout: 240_000 }, () => {
  let node: KestrelNode;
  let base: string;
  let emitter: string;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'kestrel-caps-'));
    const home = join(base, 'home');
    initHome(home, { chainId: 'kestrel_9000-1', dev: true });
    const toml = join(home, 'config', 'app.toml');
    let text = readFileSync(toml, 'utf8');
    for (const [k, v] of Object.entries(CAPS)) {
      const re = new RegExp(`^${k} = .*$`, 'm');
      assert.match(text, re, `app.toml has ${k}`);
      text = text.replace(re, `${k} = ${v}`);
    }
    writeFileSync(toml, text);
    node = await startNode({ home });
    emitter = await deployEmitter(node.http, DEV_ACCOUNTS[2]!.privateKey);
    // 60 logs in one block (over logs-cap 50) and 25 more blocks (over block-range-cap 20).
    await sendTx(node.http, DEV_ACCOUNTS[2]!.privateKey, { to: emitter, data: emitManyData(60), gas: 3_000_000n });
    for (let i = 0; i < 25; i++)
      await sendTx(node.http, DEV_ACCOUNTS[3]!.privateKey, { to: DEV_ACCOUNTS[4]!.address, value: 1n });
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  it('max-open-connections: connections over the cap get 503 with the reason (HTTP) or a refused upgrade (WS)', async () => {
    // On the uWebSockets.js back end the node stops listening at the cap (the kernel refuses new connections).
    const uws = /JSON-RPC transport: uws/.test(node.logs());
    const held: Socket[] = [];
    try {
      const { value: refused, worstMs } = await whileProbing(node.http, async () => {
        // The probe holds one connection; fill the rest of the HTTP server's 24 with idle sockets.
        for (let i = 0; i < 23; i++) {
          const s = connect(Number(new URL(node.http).port), '127.0.0.1');
          s.on('error', () => {});
          await new Promise<void>((res) => s.once('connect', () => res()));
          held.push(s);
        }
        // The uws gate polls the kernel's table (at most every 500 ms, later on a loaded machine): wait until it
        // has paused the listener.
        if (uws) {
          const port = Number(new URL(node.http).port);
          return waitFor('the HTTP listener to refuse connections at the cap', async () => {
            const outcome = await connectOutcome(port);
            return outcome === 'connected' ? undefined : outcome;
          });
        }
        return postRaw(node.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }));
      });
      if (typeof refused === 'string') {
        // uWebSockets.js cannot tell which connection a request came on: at the cap it stops listening instead. A
        // connection the kernel queued just as the listen socket closed is reset rather than refused.
        assert.match(refused, /^(ECONNREFUSED|ECONNRESET)$/);
      } else {
        assert.equal(refused.status, 503);
        assert.match(JSON.parse(refused.text).error.message, /too many open connections \(max-open-connections = 24\)/);
      }
      assert.ok(worstMs < PROBE_BOUND_MS);
    } finally {
      for (const s of held) s.destroy();
      // Served again once the idle sockets left (the uws gate listens again on its next poll); waited for even
      // when an assertion above failed, so the next test does not meet a paused listener.
      await waitFor('eth_blockNumber to be served again once the idle sockets left', () =>
        rpc(node.http, 'eth_blockNumber').then(
          (r) => (typeof r.result === 'string' ? true : undefined),
          () => undefined,
        ),
      );
    }

    // WS: 24 open sockets, the 25th handshake is refused with 503; the open ones keep working.
    const socks: WebSocket[] = [];
    try {
      for (let i = 0; i < 24; i++) socks.push(await openWs(node.ws));
      // The node:http back end refuses at once; the uws gate on its next poll of the kernel's table.
      const err = await waitFor('the 25th WebSocket handshake to be refused', () =>
        openWs(node.ws).then(
          (extra) => void extra.terminate(),
          (e: Error) => e,
        ),
      );
      assert.match(String(err?.message), uws ? /ECONNREFUSED|ECONNRESET/ : /Unexpected server response: 503/);
      const r = await wsCall(socks[0]!, 'eth_blockNumber');
      assert.equal(typeof r.result, 'string');
    } finally {
      for (const s of socks) s.terminate();
      // The node counts a socket until it has seen it close; wait for that before the next test connects (even when
      // an assertion above failed, so the next test does not meet a paused listener).
      await waitFor('a WS connection to be accepted again', () =>
        openWs(node.ws).then(
          (s) => (s.terminate(), true),
          () => undefined,
        ),
      );
    }
  });

  it('ws-subscriptions-per-connection: the 6th subscription is refused; the socket and others keep working', async () => {
    const ws = await WsRpc.connect(node.ws);
    try {
      const { value } = await whileProbing(node.http, async () => {
        for (let i = 0; i < 5; i++)
          assert.equal(typeof (await ws.request('eth_subscribe', ['newHeads'])).result, 'string');
        return ws.request('eth_subscribe', ['newHeads']);
      });
      assert.equal(value.error?.code, -32005);
      assert.match(value.error!.message, /too many subscriptions on this connection \(max 5\)/);
      assert.equal(typeof (await ws.request('eth_blockNumber')).result, 'string');
    } finally {
      ws.close();
    }
  });

  it('filter-cap: the 11th filter is refused until one is uninstalled', async () => {
    const { value: ids } = await whileProbing(node.http, async () => {
      const made: string[] = [];
      for (let i = 0; i < 10; i++) made.push((await rpc<string>(node.http, 'eth_newBlockFilter')).result!);
      const over = await rpc(node.http, 'eth_newFilter', [{}]);
      assert.equal(over.error?.code, -32005);
      assert.match(over.error!.message, /max limit reached \(filter-cap 10\)/);
      return made;
    });
    assert.equal((await rpc(node.http, 'eth_uninstallFilter', [ids[0]])).result, true);
    assert.equal(typeof (await rpc(node.http, 'eth_newBlockFilter')).result, 'string');
    for (const id of ids) await rpc(node.http, 'eth_uninstallFilter', [id]);
  });

  it('batch-request-limit and max-body-bytes: over-limit requests get -32600 / 413', async () => {
    const { value } = await whileProbing(node.http, async () => {
      const calls = Array.from({ length: 21 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_chainId',
        params: [],
      }));
      const big = await post(node.http, JSON.stringify(calls));
      const ok = await batch(
        node.http,
        Array.from({ length: 20 }, (): [string, unknown[]] => ['eth_chainId', []]),
      );
      const body = await postRaw(
        node.http,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(120_000)] }),
      );
      return { big, ok, body };
    });
    assert.deepEqual(value.big.json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } });
    assert.equal(value.ok.length, 20);
    assert.equal(value.body.status, 413);
    assert.match(value.body.text, /content length too large \(\d+>100000\)/);
  });

  it('max-response-bytes: a reply over the cap is -32003 "response too large"; in a batch, the items past it', async () => {
    // Two blocks of 25 logs with 2 KiB of data each: each receipt stays under the 200 kB cap, their logs together
    // (≈ 220 kB of JSON) do not.
    const filler = '0x' + 'ab'.repeat(2048);
    const first = await sendTx(node.http, DEV_ACCOUNTS[2]!.privateKey, {
      to: emitter,
      data: emitManyData(25, filler),
      gas: 3_000_000n,
    });
    await sendTx(node.http, DEV_ACCOUNTS[2]!.privateKey, {
      to: emitter,
      data: emitManyData(25, filler),
      gas: 3_000_000n,
    });
    const from = Number(BigInt(first.receipt.blockNumber));
    const head = Number(BigInt((await rpc<string>(node.http, 'eth_blockNumber')).result!));
    const range = { fromBlock: hex(from), toBlock: hex(head), address: emitter };
    const { value } = await whileProbing(node.http, async () => ({
      single: await rpc(node.http, 'eth_getLogs', [range]),
      oneBlock: await rpc(node.http, 'eth_getLogs', [{ ...range, toBlock: hex(from) }]),
      batch: await batch(node.http, [
        ['eth_chainId', []],
        ['eth_getLogs', [range]],
        ['eth_chainId', []],
      ]),
    }));
    assert.deepEqual(value.single.error, { code: -32003, message: 'response too large' });
    assert.equal((value.oneBlock.result as unknown[]).length, 25, 'a reply under the cap is served');
    assert.equal(value.batch[0]!.result, '0x2328');
    assert.deepEqual(value.batch[1]!.error, { code: -32003, message: 'response too large' });
    assert.deepEqual(value.batch[2]!.error, { code: -32003, message: 'response too large' });
  });

  it('logs-cap and block-range-cap: eth_getLogs over either cap is refused with the cap in the message', async () => {
    const head = Number(BigInt((await rpc<string>(node.http, 'eth_blockNumber')).result!));
    const { value } = await whileProbing(node.http, async () => ({
      range: await rpc(node.http, 'eth_getLogs', [{ fromBlock: hex(head - 21), toBlock: hex(head) }]),
      count: await rpc(node.http, 'eth_getLogs', [
        { fromBlock: '0x0', toBlock: hex(Math.min(head, 19)), address: emitter },
      ]),
    }));
    assert.equal(value.range.error?.code, -32005);
    assert.match(value.range.error!.message, /exceed maximum block range: 20/);
    assert.equal(value.count.error?.code, -32005);
    assert.match(value.count.error!.message, /50/);
  });

  it('gas-cap and evm-timeout: eth_call / eth_estimateGas are bounded in gas and wall time', async () => {
    const { value, worstMs } = await whileProbing(node.http, async () => {
      const t0 = Date.now();
      const endless = await rpc(node.http, 'eth_call', [{ data: ENDLESS, gas: hex(3_000_000) }, 'latest'], {
        timeoutMs: 20_000,
      });
      const endlessMs = Date.now() - t0;
      const overCap = await rpc(node.http, 'eth_call', [{ data: ENDLESS, gas: hex(50_000_000) }, 'latest'], {
        timeoutMs: 20_000,
      });
      const estimate = await rpc(node.http, 'eth_estimateGas', [{ from: DEV_ACCOUNTS[5]!.address, data: ENDLESS }], {
        timeoutMs: 20_000,
      });
      return { endless, endlessMs, overCap, estimate };
    });
    // An endless loop with 3M gas either runs out of gas or hits the 1 s deadline; either way it ends.
    assert.ok(value.endless.error, JSON.stringify(value.endless));
    assert.ok(value.endlessMs < 10_000, `eth_call ended after ${value.endlessMs} ms`);
    // A gas request above the cap is clamped to the cap (as geth does), so it ends the same way.
    assert.ok(value.overCap.error, JSON.stringify(value.overCap));
    assert.match(value.overCap.error!.message, /out of gas|execution aborted \(timeout = 1s\)/);
    assert.ok(value.estimate.error, JSON.stringify(value.estimate));
    assert.match(
      value.estimate.error!.message,
      /gas required exceeds allowance \(3000000\)|execution aborted|out of gas/,
    );
    assert.ok(worstMs < PROBE_BOUND_MS);
  });

  it('trace time and memory: a JS tracer that loops or allocates without end is stopped; tracing keeps working', async () => {
    // JS tracers run in worker threads, so the probe must stay as prompt as in every other case.
    const call = { from: DEV_ACCOUNTS[5]!.address, to: DEV_ACCOUNTS[6]!.address, value: '0x1' };
    const { value } = await whileProbing(node.http, async () => ({
      // Asks for 5 minutes; the node's tracer-timeout-cap (2s) holds it.
      spin: await timed(() =>
        rpc(
          node.http,
          'debug_traceCall',
          [
            call,
            'latest',
            {
              tracer: '{step: function() {}, fault: function() {}, result: function() { for (;;) {} }}',
              timeout: '5m',
            },
          ],
          { timeoutMs: 60_000 },
        ),
      ),
      hog: await rpc(
        node.http,
        'debug_traceCall',
        [
          call,
          'latest',
          {
            tracer:
              '{step: function() {}, fault: function() {}, result: function() { var a = []; a.length = 1e9; a.fill(1); }}',
            timeout: '20s',
          },
        ],
        { timeoutMs: 30_000 },
      ),
      ok: await rpc(node.http, 'debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]),
    }));
    assert.ok(value.spin.res.error, JSON.stringify(value.spin.res));
    assert.match(value.spin.res.error!.message, /timeout/);
    // 2 s cap plus a cold worker's start on a loaded machine; without the cap this would run until the client gave up.
    assert.ok(value.spin.ms < 30_000, `capped trace took ${value.spin.ms} ms`);
    assert.ok(value.hog.error, JSON.stringify(value.hog));
    assert.match(value.hog.error!.message, /memory|out of memory|InternalError/i);
    assert.equal(value.ok.result && (value.ok.result as any).type, 'CALL');
  });
});

async function timed<T>(fn: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const t0 = Date.now();
  const res = await fn();
  return { res, ms: Date.now() - t0 };
}

async function openWs(url: string): Promise<WebSocket> {
  const s = new WebSocket(url);
  s.on('error', () => {});
  await new Promise<void>((res, rej) => {
    s.once('open', () => res());
    s.once('unexpected-response', (_req, r) => rej(new Error(`Unexpected server response: ${r.statusCode}`)));
    s.once('error', rej);
  });
  return s;
}

function wsCall(s: WebSocket, method: string): Promise<{ result?: unknown; error?: unknown }> {
  return new Promise((res) => {
    s.once('message', (d) => res(JSON.parse(d.toString())));
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }));
  });
}
