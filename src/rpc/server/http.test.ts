import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { InvalidParamsError, MethodNotFoundError } from '../../errors/index.ts';
import { DEFAULT_RPC_LIMITS } from './jsonrpc.ts';
import type { Dispatcher } from './jsonrpc.ts';
import { transportsUnderTest } from './transports.testing.ts';
import { startHttpTransport, type RunningServer, type TransportChoice } from './transport.ts';

const TOKEN = 'secret-token-0123456789';
const MAX = DEFAULT_RPC_LIMITS.maxBodyBytes;

function fakeDispatcher(calls: string[] = []): Dispatcher {
  return {
    async call(method, params, meta) {
      calls.push(method);
      switch (method) {
        case 'echo':
          return { method, params, transport: meta.transport, authorized: meta.authorized };
        case 'invalid':
          throw new InvalidParamsError('invalid argument 0: bad');
        case 'crash':
          throw new Error('boom');
        case 'slow':
          await new Promise((r) => setTimeout(r, Number(params[0] ?? 20)));
          return 'slow';
        default:
          throw new MethodNotFoundError(method);
      }
    },
  };
}

function suite(choice: TransportChoice): void {
  describe(`http transport (${choice.kind})`, () => {
    const logs: string[] = [];
    const calls: string[] = [];
    const servers: RunningServer[] = [];
    let plain: string; // no CORS, with auth token
    let wildcard: string; // CORS '*'
    let listed: string; // CORS for one origin, no auth token
    let quick: RunningServer; // short request timeout

    async function start(corsOrigins: string[], authToken?: string, requestTimeoutMs?: number) {
      const s = await startHttpTransport(choice, {
        host: '127.0.0.1',
        port: 0,
        dispatcher: fakeDispatcher(calls),
        limits: DEFAULT_RPC_LIMITS,
        corsOrigins,
        authToken,
        requestTimeoutMs,
        log: (m) => logs.push(m),
      });
      servers.push(s);
      return s;
    }

    before(async () => {
      plain = `http://127.0.0.1:${(await start([], TOKEN)).port}/`;
      wildcard = `http://127.0.0.1:${(await start(['*'], TOKEN)).port}/`;
      listed = `http://127.0.0.1:${(await start(['https://app.example'])).port}/`;
      quick = await start([], undefined, 300);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.close()));
    });

    function post(url: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
      return fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });
    }
    const req = (o: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...o });

    it('listens on a real port when asked for port 0', () => {
      for (const s of servers) assert.ok(s.port > 0);
      assert.equal(new Set(servers.map((s) => s.port)).size, servers.length);
    });

    it('answers a call with application/json and http meta', async () => {
      const res = await post(plain, req({ id: 1, method: 'echo', params: ['x'] }));
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^application\/json/);
      assert.equal(
        await res.text(),
        '{"jsonrpc":"2.0","id":1,"result":{"method":"echo","params":["x"],"transport":"http","authorized":false}}',
      );
    });

    it('accepts a charset parameter on the content type', async () => {
      const res = await post(plain, req({ id: 'a', method: 'echo' }), {
        'Content-Type': 'application/json; charset=UTF-8',
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).id, 'a');
    });

    it('answers JSON-RPC level errors with HTTP 200', async () => {
      const parse = await post(plain, '{oops');
      assert.equal(parse.status, 200);
      assert.equal(await parse.text(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
      const invalid = await post(plain, JSON.stringify({ id: 5, method: 'echo' }));
      assert.deepEqual(await invalid.json(), {
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32600, message: 'invalid request' },
      });
      const params = await post(plain, req({ id: null, method: 'echo', params: { a: 1 } }));
      assert.deepEqual(await params.json(), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32602, message: 'non-array args' },
      });
      const domain = await post(plain, req({ id: 2, method: 'invalid' }));
      assert.deepEqual((await domain.json()).error, { code: -32602, message: 'invalid argument 0: bad' });
    });

    it('survives a handler crash and logs it', async () => {
      const before = logs.length;
      const res = await post(plain, req({ id: 3, method: 'crash' }));
      assert.deepEqual((await res.json()).error, { code: -32000, message: 'method handler crashed' });
      assert.equal(logs.length, before + 1);
      assert.equal((await (await post(plain, req({ id: 4, method: 'echo' }))).json()).id, 4);
    });

    it('answers notifications with 200 and an empty body, after running them', async () => {
      const n = calls.length;
      const res = await post(plain, req({ method: 'echo' }));
      assert.equal(res.status, 200);
      assert.equal(await res.text(), '');
      assert.equal(calls.length, n + 1);
      const all = await post(
        plain,
        JSON.stringify([
          { jsonrpc: '2.0', method: 'echo' },
          { jsonrpc: '2.0', method: 'echo' },
        ]),
      );
      assert.equal(all.status, 200);
      assert.equal(await all.text(), '');
    });

    it('handles batches: mixed, empty and too large', async () => {
      const mixed = await post(
        plain,
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'slow', params: [30] },
          { jsonrpc: '2.0', method: 'echo' },
          { jsonrpc: '2.0', id: 2, method: 'invalid' },
        ]),
      );
      const body = await mixed.json();
      assert.deepEqual(
        body.map((r: { id: unknown }) => r.id),
        [1, 2],
      );
      assert.equal(body[0].result, 'slow');
      assert.equal(body[1].error.code, -32602);
      const empty = await post(plain, '[]');
      assert.equal(await empty.text(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
      const big = await post(plain, JSON.stringify(Array(1001).fill({ jsonrpc: '2.0', id: 1, method: 'echo' })));
      assert.equal(await big.text(), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}');
    });

    it('does not crash on invalid UTF-8', async () => {
      const res = await post(plain, Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d));
      assert.equal((await res.json()).error.code, -32700);
    });

    it('refuses a body of maxBodyBytes + 1 with 413', async () => {
      const res = await post(plain, new Uint8Array(MAX + 1).fill(0x20)).catch((e: unknown) => e);
      assert.ok(res instanceof Response, `expected a response, got ${String(res)}`);
      assert.equal(res.status, 413);
      assert.deepEqual(await res.json(), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `content length too large (${MAX + 1}>${MAX})` },
      });
    });

    it('accepts a body of exactly maxBodyBytes', async () => {
      const call = req({ id: 1, method: 'echo' });
      const res = await post(plain, call + ' '.repeat(MAX - call.length));
      assert.equal(res.status, 200);
      assert.equal((await res.json()).id, 1);
    });

    it('counts bytes of a chunked body and answers 413 once over the limit', async () => {
      const { port } = servers[0]!;
      const status = await new Promise<number>((resolve, reject) => {
        const r = http.request(
          { host: '127.0.0.1', port, method: 'POST', headers: { 'Content-Type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        r.on('error', reject);
        const chunk = Buffer.alloc(1 << 20, 0x20);
        // Six 1 MiB chunks exceed 5 MiB and the upload never ends: the server answers without buffering it, at once
        // (node:http, whose close then lingers) or after the linger (uWS, which resets a connection whose chunked
        // upload goes on under a written reply: it answers once the upload ends, or LINGER_MS after the limit).
        let sent = 0;
        const pump = (): void => {
          while (sent < 6) {
            sent++;
            if (!r.write(chunk)) {
              r.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
      assert.equal(status, 413);
      assert.equal((await (await post(plain, req({ id: 1, method: 'echo' }))).json()).id, 1);
    });

    it('after a 413 the close lingers: the rest of the upload is read, no reset can destroy the answer', async () => {
      const { port } = servers[0]!;
      const sock = net.connect(port, '127.0.0.1');
      const events: string[] = [];
      let text = '';
      const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()));
      sock.on('error', (e: NodeJS.ErrnoException) => events.push(`error ${e.code}`));
      sock.on('end', () => events.push('end'));
      await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
      const declared = MAX + (2 << 20);
      sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
      await new Promise<void>((resolve) =>
        sock.on('data', (d: Buffer) => {
          text += d.toString();
          if (text.includes('content length too large')) resolve();
        }),
      );
      assert.match(text, /^HTTP\/1\.1 413 /);
      // The client only now sends its body, as a client that writes before reading does. The node must keep reading
      // (and discarding) it: destroying the socket instead makes the kernel answer these bytes with a reset.
      const chunk = Buffer.alloc(1 << 20, 0x20);
      for (let i = 0; i < declared / chunk.length; i++) sock.write(chunk);
      await new Promise((r) => setTimeout(r, 300));
      sock.end();
      await closed;
      assert.deepEqual(
        events.filter((e) => e.startsWith('error')),
        [],
        'no reset while the rest of the upload was sent',
      );
      assert.ok(events.includes('end'), 'the node shut its side cleanly');
    });

    it('refuses other content types with 415', async () => {
      for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
        const res = await post(plain, req({ id: 1, method: 'echo' }), { 'Content-Type': ct });
        assert.equal(res.status, 415, ct);
        assert.equal((await res.json()).error.message, 'invalid content type, only application/json is supported');
      }
      const none = await fetch(plain, {
        method: 'POST',
        body: new Uint8Array(Buffer.from(req({ id: 1, method: 'echo' }))),
      });
      assert.equal(none.status, 415);
    });

    it('refuses GET, PUT and DELETE with 405 and a JSON-RPC error body', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await fetch(plain, { method });
        assert.equal(res.status, 405, method);
        assert.deepEqual(await res.json(), {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'method not allowed' },
        });
      }
    });

    it('sends no CORS headers when CORS is off, and OPTIONS is 405', async () => {
      const res = await post(plain, req({ id: 1, method: 'echo' }), { Origin: 'https://evil.example' });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
      const pre = await fetch(plain, { method: 'OPTIONS', headers: { Origin: 'https://evil.example' } });
      assert.equal(pre.status, 405);
      assert.equal(pre.headers.get('access-control-allow-origin'), null);
    });

    it('allows any origin with ["*"], including preflight', async () => {
      const res = await post(wildcard, req({ id: 1, method: 'echo' }), { Origin: 'https://anything.example' });
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      const pre = await fetch(wildcard, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://anything.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,authorization',
        },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), '*');
      assert.match(pre.headers.get('access-control-allow-methods')!, /POST/);
      assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type,authorization');
    });

    it('allows only listed origins', async () => {
      const ok = await post(listed, req({ id: 1, method: 'echo' }), { Origin: 'https://app.example' });
      assert.equal(ok.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.equal(ok.headers.get('vary'), 'Origin');
      const other = await post(listed, req({ id: 1, method: 'echo' }), { Origin: 'https://evil.example' });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
      const pre = await fetch(listed, { method: 'OPTIONS', headers: { Origin: 'https://evil.example' } });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), null);
    });

    it('marks calls authorized only for the right bearer header', async () => {
      const authorized = async (url: string, headers: Record<string, string>) =>
        (await (await post(url, req({ id: 1, method: 'echo' }), headers)).json()).result.authorized;
      assert.equal(await authorized(plain, { Authorization: `Bearer ${TOKEN}` }), true);
      assert.equal(await authorized(plain, { Authorization: `bearer ${TOKEN}` }), true);
      assert.equal(await authorized(plain, {}), false);
      assert.equal(await authorized(plain, { Authorization: `Bearer ${TOKEN}x` }), false);
      assert.equal(await authorized(plain, { Authorization: `Bearer ${TOKEN.slice(0, -1)}X` }), false);
      assert.equal(await authorized(plain, { Authorization: TOKEN }), false);
      assert.equal(await authorized(plain, { Authorization: `Basic ${TOKEN}` }), false);
      assert.equal(await authorized(`${plain}?token=${TOKEN}`, {}), false);
      assert.equal(await authorized(`${plain}?auth=Bearer%20${TOKEN}`, {}), false);
      // A server without a token never authorizes, whatever the client sends.
      assert.equal(await authorized(listed, { Authorization: `Bearer ${TOKEN}` }), false);
      assert.equal(await authorized(listed, { Authorization: 'Bearer ' }), false);
    });

    it('keeps connections alive', async () => {
      const { port } = servers[0]!;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const once = () =>
        new Promise<{ header: string | undefined; hint: string | undefined; socket: net.Socket }>((resolve, reject) => {
          const r = http.request(
            { host: '127.0.0.1', port, method: 'POST', agent, headers: { 'Content-Type': 'application/json' } },
            (res) => {
              res.resume();
              res.on('end', () =>
                resolve({
                  header: res.headers.connection,
                  hint: res.headers['keep-alive'] as string | undefined,
                  socket: r.socket as net.Socket,
                }),
              );
            },
          );
          r.on('error', reject);
          r.end(req({ id: 1, method: 'echo' }));
        });
      const a = await once();
      const b = await once();
      agent.destroy();
      // HTTP/1.1 is persistent by default: node:http says so in a header, uWebSockets.js does not.
      assert.ok(a.header === 'keep-alive' || a.header === undefined, `Connection: ${a.header}`);
      assert.equal(a.socket, b.socket);
      // Pooling clients (undici; Node's agent with an idle timeout) retire an idle socket a second before this hint;
      // without it they reuse one that uWS's fixed idle close (10 s, ticking every 4 s) is ending: "socket hang up".
      const hint = Number(/^timeout=(\d+)$/.exec(a.hint ?? '')?.[1]);
      assert.ok(hint >= 2, `Keep-Alive: ${a.hint}`);
      if (choice.kind === 'uws') assert.ok(hint <= 8, `Keep-Alive: ${a.hint} outlives uWS's idle close`);
    });

    it('drops a client that never finishes its request', { timeout: 15_000 }, async () => {
      const started = Date.now();
      const reply = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(quick.port, '127.0.0.1', () => {
          sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
        });
        let data = '';
        sock.on('data', (d) => {
          data += d.toString();
        });
        sock.on('close', () => resolve(data));
        sock.on('error', reject);
      });
      assert.match(reply, /^HTTP\/1\.1 408/);
      // Far below the 30 s default: the short requestTimeout did it (with slack for a loaded CI machine).
      assert.ok(Date.now() - started < 8000);
    });

    it('answers only allowed Host names (403 otherwise); IP literals always pass', async () => {
      const s = await startHttpTransport(choice, {
        host: '127.0.0.1',
        port: 0,
        dispatcher: fakeDispatcher(),
        limits: DEFAULT_RPC_LIMITS,
        corsOrigins: [],
        allowedHosts: ['localhost'],
        log: (m) => logs.push(m),
      });
      servers.push(s);
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const r = http.request(
            {
              host: '127.0.0.1',
              port: s.port,
              method: 'POST',
              headers: { Host: host, 'Content-Type': 'application/json' },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode!);
            },
          );
          r.on('error', reject);
          r.end(req({ id: 1, method: 'echo' }));
        });
      assert.equal(await status('evil.example'), 403);
      assert.equal(await status('evil.example:8545'), 403);
      assert.equal(await status('localhost:8545'), 200);
      assert.equal(await status('LOCALHOST'), 200);
      assert.equal(await status('127.0.0.1:8545'), 200);
      assert.equal(await status('[::1]:8545'), 200);
    });

    it('refuses connections over max-open-connections (503, or refused at the cap on uws), and serves again once they close', async () => {
      const s = await startHttpTransport(choice, {
        host: '127.0.0.1',
        port: 0,
        dispatcher: fakeDispatcher(),
        limits: DEFAULT_RPC_LIMITS,
        corsOrigins: [],
        maxOpenConnections: 3,
        log: (m) => logs.push(m),
      });
      servers.push(s);
      const url = `http://127.0.0.1:${s.port}/`;
      const idle: net.Socket[] = [];
      for (let i = 0; i < 3; i++) {
        const sock = net.connect(s.port, '127.0.0.1');
        sock.on('error', () => {});
        await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
        idle.push(sock);
      }
      // The uws gate reads the kernel's table at most every 500 ms.
      await new Promise((r) => setTimeout(r, 700));
      const refused = await post(url, req({ id: 1, method: 'echo' }), { Connection: 'close' }).catch((e: Error) => e);
      if (choice.kind === 'node') {
        assert.ok(refused instanceof Response);
        assert.equal(refused.status, 503);
        assert.deepEqual(await refused.json(), {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'too many open connections (max-open-connections = 3)' },
        });
      } else {
        // uWebSockets.js cannot tell which connection a request came on: at the cap it stops listening instead.
        assert.ok(refused instanceof Error, 'the connection was refused');
        assert.equal((refused.cause as NodeJS.ErrnoException | undefined)?.code, 'ECONNREFUSED');
      }
      for (const sock of idle) sock.destroy();
      await new Promise((r) => setTimeout(r, 400));
      const served = await post(url, req({ id: 2, method: 'echo' }));
      assert.equal(served.status, 200);
      assert.equal((await served.json()).id, 2);
    });

    it('close() stops listening and ends keep-alive connections', async () => {
      const s = await startHttpTransport(choice, {
        host: '127.0.0.1',
        port: 0,
        dispatcher: fakeDispatcher(),
        limits: DEFAULT_RPC_LIMITS,
        corsOrigins: [],
        log: (m) => logs.push(m),
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const socket = await new Promise<net.Socket>((resolve, reject) => {
        const r = http.request(
          { host: '127.0.0.1', port: s.port, method: 'POST', agent, headers: { 'Content-Type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(r.socket as net.Socket));
          },
        );
        r.on('error', reject);
        r.end(req({ id: 1, method: 'echo' }));
      });
      const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      await s.close();
      await ended;
      agent.destroy();
      const refused = await post(`http://127.0.0.1:${s.port}/`, req({ id: 1, method: 'echo' })).then(
        () => 'answered',
        () => 'refused',
      );
      assert.equal(refused, 'refused');
    });
  });
}

for (const choice of transportsUnderTest()) suite(choice);
