// Replies answered synchronously and written together at the end of the loop's turn (coalesceWrites), on both back
// ends: every reply reaches its own request, a client gone before the write costs nothing, and with the option off
// pipelined requests are answered in order.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MethodNotFoundError } from '../../errors/index.ts';
import { DEFAULT_RPC_LIMITS, type Dispatcher } from './jsonrpc.ts';
import { transportsUnderTest } from './transports.testing.ts';
import { startHttpTransport, type RunningServer, type TransportChoice } from './transport.ts';

/** Answers without a promise, so replies take the coalesced path. */
const syncDispatcher: Dispatcher = {
  call(method, params) {
    if (method === 'echo') return params[0];
    throw new MethodNotFoundError(method);
  },
};

const body = (id: number, value: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: [value] });

/** POSTs over a keep-alive agent and returns the parsed reply. */
function post(agent: http.Agent, port: number, text: string): Promise<{ id: number; result: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: '127.0.0.1', port, method: 'POST', headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve(JSON.parse(data) as { id: number; result: string }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** Writes raw HTTP/1.1 requests in one packet and returns the ids of the replies, in the order they came. */
function pipelined(port: number, ids: number[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      text += c;
      const got = [...text.matchAll(/"id":(\d+)/g)].map((m) => Number(m[1]));
      if (got.length === ids.length) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed after: ${text}`)));
    const one = (id: number) => {
      const b = body(id, `v${id}`);
      return `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`;
    };
    socket.write(ids.map(one).join(''));
  });
}

function suite(choice: TransportChoice): void {
  describe(`coalesced HTTP writes (${choice.kind})`, () => {
    const servers: RunningServer[] = [];
    const logs: string[] = [];
    let coalesced: number;
    let direct: number;
    const start = async (coalesceWrites: boolean) => {
      const s = await startHttpTransport(choice, {
        host: '127.0.0.1',
        port: 0,
        dispatcher: syncDispatcher,
        limits: DEFAULT_RPC_LIMITS,
        corsOrigins: [],
        coalesceWrites,
        log: (m) => logs.push(m),
      });
      servers.push(s);
      return s.port;
    };
    before(async () => {
      coalesced = await start(true);
      direct = await start(false);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.close()));
      // No reply was written to a connection that had gone (uWS throws, and the burst logs it).
      assert.deepEqual(logs, []);
    });

    it('gives every request its own reply across many connections at once', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
      try {
        const n = 800;
        const replies = await Promise.all(
          Array.from({ length: n }, (_, i) => post(agent, coalesced, body(i, `value-${i}`))),
        );
        for (let i = 0; i < n; i++) assert.deepEqual(replies[i], { jsonrpc: '2.0', id: i, result: `value-${i}` });
      } finally {
        agent.destroy();
      }
    });

    it('drops the reply of a client that left before it was written, and goes on serving', async () => {
      await Promise.all(
        Array.from(
          { length: 50 },
          (_, i) =>
            new Promise<void>((resolve) => {
              const socket = net.connect(coalesced, '127.0.0.1', () => {
                const b = body(i, 'gone');
                socket.end(
                  `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`,
                );
                socket.destroy();
                resolve();
              });
              socket.on('error', () => resolve());
            }),
        ),
      );
      const agent = new http.Agent({ keepAlive: true });
      try {
        assert.equal((await post(agent, coalesced, body(7, 'still here'))).result, 'still here');
      } finally {
        agent.destroy();
      }
    });

    it('answers pipelined requests in order when writes are not coalesced', async () => {
      assert.deepEqual(await pipelined(direct, [1, 2, 3, 4]), [1, 2, 3, 4]);
    });

    if (choice.kind === 'uws') {
      it('closes a pipelining connection when writes are coalesced (uWS refuses a request while one is pending)', async () => {
        // The first reply of the turn is written at once, the second is held, and the third request is parsed while
        // it is pending: uWS closes the connection, and the held reply must then be dropped, not written to a
        // discarded response.
        await assert.rejects(pipelined(coalesced, [1, 2, 3]), /connection closed/);
        const agent = new http.Agent({ keepAlive: true });
        try {
          assert.equal((await post(agent, coalesced, body(8, 'after'))).result, 'after');
        } finally {
          agent.destroy();
        }
      });
    }

    if (choice.kind === 'node') {
      it('answers pipelined requests in order with coalesced writes too (node:http queues them)', async () => {
        assert.deepEqual(await pipelined(coalesced, [5, 6, 7]), [5, 6, 7]);
      });
    }
  });
}

for (const choice of transportsUnderTest()) suite(choice);
