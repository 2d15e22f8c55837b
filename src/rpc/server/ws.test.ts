import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { InvalidParamsError, MethodNotFoundError } from '../../errors/index.ts';
import type { Dispatcher } from './jsonrpc.ts';
import { transportsUnderTest } from './transports.testing.ts';
import { startWsTransport, type RunningServer, type TransportChoice } from './transport.ts';

const TOKEN = 'ws-secret-token';
const LIMITS = { maxBodyBytes: 4096, maxBatchItems: 10 };

const closedConnections: number[] = [];
/** Connections closed after a 'flood' (the one test that floods clears it first). */
const flooded: number[] = [];

function fakeDispatcher(): Dispatcher {
  return {
    async call(method, params, meta) {
      switch (method) {
        case 'echo':
          return { params, transport: meta.transport, authorized: meta.authorized, conn: meta.connection?.id ?? null };
        case 'invalid':
          throw new InvalidParamsError('invalid argument 0: bad');
        case 'crash':
          throw new Error('boom');
        case 'slow':
          await new Promise((r) => setTimeout(r, Number(params[0] ?? 20)));
          return `slow ${String(params[0])}`;
        case 'flood': {
          // Pushes far more than a non-reading client's socket buffers hold, as a busy subscription would.
          const conn = meta.connection!;
          conn.onClose(() => flooded.push(conn.id));
          const chunk = 'x'.repeat(256 * 1024);
          let sent = 0;
          const pump = (): void => {
            for (let i = 0; i < 8 && sent < 400; i++, sent++)
              conn.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { result: chunk } });
            if (sent < 400) setTimeout(pump, 5);
          };
          setTimeout(pump, 0);
          return conn.id;
        }
        case 'subscribe': {
          const conn = meta.connection!;
          conn.onClose(() => closedConnections.push(conn.id));
          // Push after the reply, as eth_subscribe does.
          setTimeout(
            () =>
              conn.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: 42 } }),
            10,
          );
          return '0x1';
        }
        default:
          throw new MethodNotFoundError(method);
      }
    },
  };
}

function suite(choice: TransportChoice): void {
  describe(`ws transport (${choice.kind})`, () => {
    const logs: string[] = [];
    const servers: RunningServer[] = [];
    const clients: WebSocket[] = [];
    let main: RunningServer;
    let url: string;

    async function start(
      extra: {
        corsOrigins?: string[];
        authToken?: string;
        pingIntervalMs?: number;
        maxOpenConnections?: number;
        maxBufferedBytes?: number;
      } = {},
    ) {
      const s = await startWsTransport(choice, {
        host: '127.0.0.1',
        port: 0,
        dispatcher: fakeDispatcher(),
        limits: LIMITS,
        log: (m) => logs.push(m),
        ...extra,
      });
      servers.push(s);
      return s;
    }

    before(async () => {
      main = await start({ authToken: TOKEN });
      url = `ws://127.0.0.1:${main.port}/`;
    });
    after(async () => {
      for (const c of clients) c.terminate();
      await Promise.all(servers.map((s) => s.close()));
    });

    /** Opens a client and collects every text message it receives. */
    async function connect(target = url, options: WebSocket.ClientOptions = {}) {
      const ws = new WebSocket(target, options);
      clients.push(ws);
      const inbox: unknown[] = [];
      const waiters: Array<() => void> = [];
      ws.on('message', (data) => {
        inbox.push(JSON.parse(data.toString()));
        for (const w of waiters.splice(0)) w();
      });
      await once(ws, 'open');
      const next = async (): Promise<unknown> => {
        while (inbox.length === 0) await new Promise<void>((r) => waiters.push(r));
        return inbox.shift();
      };
      const call = async (body: unknown): Promise<any> => {
        ws.send(typeof body === 'string' ? body : JSON.stringify(body));
        return next();
      };
      return { ws, inbox, next, call };
    }

    const req = (id: unknown, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, params });

    it('answers calls with ws meta and echoes ids', async () => {
      const c = await connect();
      const r = await c.call(req(1, 'echo', ['a']));
      assert.deepEqual(r, {
        jsonrpc: '2.0',
        id: 1,
        result: { params: ['a'], transport: 'ws', authorized: false, conn: r.result.conn },
      });
      assert.equal(typeof r.result.conn, 'number');
      assert.equal((await c.call(req('x', 'echo'))).id, 'x');
      assert.equal((await c.call(req(null, 'echo'))).id, null);
    });

    it('numbers connections per server instance', async () => {
      const a = await connect();
      const b = await connect();
      const idA = (await a.call(req(1, 'echo'))).result.conn;
      const idB = (await b.call(req(1, 'echo'))).result.conn;
      assert.equal(idB, idA + 1);
      const other = await start();
      const c = await connect(`ws://127.0.0.1:${other.port}/`);
      assert.equal((await c.call(req(1, 'echo'))).result.conn, 1);
    });

    it('applies the same envelope rules as HTTP', async () => {
      const c = await connect();
      assert.deepEqual(await c.call('{nope'), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'parse error' },
      });
      assert.deepEqual(await c.call({ id: 2, method: 'echo' }), {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32600, message: 'invalid request' },
      });
      assert.deepEqual(await c.call(req(3, 'echo', { a: 1 })), {
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32602, message: 'non-array args' },
      });
      assert.deepEqual((await c.call(req(4, 'invalid'))).error, { code: -32602, message: 'invalid argument 0: bad' });
      assert.deepEqual((await c.call(req(5, 'crash'))).error, { code: -32000, message: 'method handler crashed' });
      assert.deepEqual(await c.call('[]'), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'empty batch' },
      });
      assert.deepEqual(await c.call(Array(11).fill(req(1, 'echo'))), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'batch too large' },
      });
      const batch = await c.call([req(6, 'echo'), { jsonrpc: '2.0', method: 'echo' }, req(7, 'invalid')]);
      assert.deepEqual(
        batch.map((r: { id: unknown }) => r.id),
        [6, 7],
      );
    });

    it('sends nothing for notifications', async () => {
      const c = await connect();
      c.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'echo' }));
      c.ws.send(
        JSON.stringify([
          { jsonrpc: '2.0', method: 'echo' },
          { jsonrpc: '2.0', method: 'crash' },
        ]),
      );
      // The connection is ordered: a reply to a later request proves nothing was sent for the earlier ones.
      assert.equal((await c.call(req(9, 'slow', [30]))).id, 9);
      assert.equal(c.inbox.length, 0);
    });

    it('accepts binary frames', async () => {
      const c = await connect();
      c.ws.send(Buffer.from(JSON.stringify(req(1, 'echo', [1]))), { binary: true });
      assert.deepEqual(((await c.next()) as { result: { params: unknown } }).result.params, [1]);
    });

    it('sends replies in completion order', async () => {
      const c = await connect();
      c.ws.send(JSON.stringify(req('slow', 'slow', [150])));
      c.ws.send(JSON.stringify(req('fast', 'echo')));
      assert.equal(((await c.next()) as { id: string }).id, 'fast');
      assert.equal(((await c.next()) as { id: string }).id, 'slow');
    });

    it('decides authorization once from the upgrade header', async () => {
      const authorized = async (target: string, headers: Record<string, string>) =>
        (await (await connect(target, { headers })).call(req(1, 'echo'))).result.authorized;
      assert.equal(await authorized(url, { Authorization: `Bearer ${TOKEN}` }), true);
      assert.equal(await authorized(url, { Authorization: 'Bearer wrong-token-xxx' }), false);
      assert.equal(await authorized(url, {}), false);
      assert.equal(await authorized(`${url}?token=${TOKEN}`, {}), false);
    });

    it('lets methods push messages and learn about the close', async () => {
      const c = await connect();
      const reply = await c.call(req(1, 'subscribe'));
      assert.equal(reply.result, '0x1');
      assert.deepEqual(await c.next(), {
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: { subscription: '0x1', result: 42 },
      });
      const id = (await c.call(req(2, 'echo'))).result.conn;
      c.ws.close();
      await once(c.ws, 'close');
      const deadline = Date.now() + 2000;
      while (!closedConnections.includes(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.ok(closedConnections.includes(id));
    });

    it('closes on an oversize frame and keeps serving other clients', async () => {
      const bystander = await connect();
      const victim = await connect();
      victim.ws.on('error', () => {});
      victim.ws.send('x'.repeat(LIMITS.maxBodyBytes + 1));
      const [code] = (await once(victim.ws, 'close')) as [number];
      // ws sends a 1009 close frame; uWebSockets.js drops the connection at once (the client sees 1006).
      assert.equal(code, choice.kind === 'node' ? 1009 : 1006);
      assert.equal((await bystander.call(req(1, 'echo'))).id, 1);
      assert.equal((await (await connect()).call(req(2, 'echo'))).id, 2);
    });

    it('checks the Origin of browser handshakes', async () => {
      const refused = async (target: string, origin: string) => {
        const ws = new WebSocket(target, { origin });
        clients.push(ws);
        const status = await new Promise<number | 'open'>((resolve) => {
          ws.on('open', () => resolve('open'));
          ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
          ws.on('error', () => {});
        });
        ws.terminate();
        return status;
      };
      assert.equal(await refused(url, 'https://evil.example'), 403);
      assert.equal(await refused(url, 'http://localhost:3000'), 'open');
      const listed = await start({ corsOrigins: ['https://app.example'] });
      const listedUrl = `ws://127.0.0.1:${listed.port}/`;
      assert.equal(await refused(listedUrl, 'https://app.example'), 'open');
      assert.equal(await refused(listedUrl, 'http://localhost:3000'), 403);
      const any = await start({ corsOrigins: ['*'] });
      assert.equal(await refused(`ws://127.0.0.1:${any.port}/`, 'https://evil.example'), 'open');
    });

    it('answers plain HTTP with 426', async () => {
      const res = await fetch(`http://127.0.0.1:${main.port}/`, { method: 'POST', body: '{}' });
      assert.equal(res.status, 426);
      assert.equal((await res.json()).error.code, -32600);
    });

    it('drops clients that stop answering pings and keeps those that do', { timeout: 5000 }, async () => {
      const s = await start({ pingIntervalMs: 40 });
      const target = `ws://127.0.0.1:${s.port}/`;
      const healthy = await connect(target);
      const dead = await connect(target, { autoPong: false });
      const started = Date.now();
      await once(dead.ws, 'close');
      assert.ok(Date.now() - started < 1000);
      assert.equal(healthy.ws.readyState, WebSocket.OPEN);
      assert.equal((await healthy.call(req(1, 'echo'))).id, 1);
    });

    it('close() terminates every client', async () => {
      const s = await start();
      const c = await connect(`ws://127.0.0.1:${s.port}/`);
      const closed = once(c.ws, 'close');
      await s.close();
      await closed;
      assert.equal(c.ws.readyState, WebSocket.CLOSED);
    });

    it('refuses connections over max-open-connections (503, or refused at the cap on uws); open sockets keep working', async () => {
      const s = await start({ maxOpenConnections: 3 });
      const target = `ws://127.0.0.1:${s.port}/`;
      const open = [await connect(target), await connect(target), await connect(target)];
      // The uws gate reads the kernel's table at most every 500 ms.
      await new Promise((r) => setTimeout(r, 700));
      const status = await new Promise<number | string>((resolve) => {
        const ws = new WebSocket(target);
        clients.push(ws);
        ws.on('open', () => resolve('open'));
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
        ws.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
      // uWebSockets.js cannot refuse one connection with a status: at the cap it stops listening instead.
      assert.equal(status, choice.kind === 'node' ? 503 : 'ECONNREFUSED');
      assert.equal((await open[0]!.call(req(1, 'echo'))).id, 1);
      for (const c of open) c.ws.terminate();
      const deadline = Date.now() + 3000;
      let again: Awaited<ReturnType<typeof connect>> | undefined;
      while (again === undefined && Date.now() < deadline) {
        again = await connect(target).catch(() => undefined);
        if (again === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(again, 'accepted again once the others closed');
    });

    it(
      'closes a connection whose client stops reading once its unsent bytes pass the bound',
      { timeout: 20_000 },
      async () => {
        const s = await start({ maxBufferedBytes: 1 << 20 });
        const c = await connect(`ws://127.0.0.1:${s.port}/`);
        const id = (await c.call(req(1, 'echo'))).result.conn;
        flooded.length = 0;
        // The client stops reading: its kernel buffers fill, then the server's queue grows.
        (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
        c.ws.send(JSON.stringify(req(2, 'flood')));
        const deadline = Date.now() + 15_000;
        while (!flooded.includes(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.ok(flooded.includes(id), 'the server closed the connection');
      },
    );
  });
}

for (const choice of transportsUnderTest()) suite(choice);
