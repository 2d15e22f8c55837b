// The gRPC port bound before grpc-js loads: the bind fails as grpc-js's would, a client that connects before the
// load is served once it is done, and only IP-literal addresses take this path.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ipHostPort, reserveGrpcPort, type ConnectionSink } from './deferred.ts';
import { HEIGHT_HEADER, queryGrpcSink } from './query.ts';
import { rawService } from './server.ts';

/** A sink over a plain HTTP/2 server answering "ok", and how many times it was loaded. */
function h2Sink(): { load: () => Promise<ConnectionSink>; loads: () => number } {
  let n = 0;
  return {
    loads: () => n,
    load: async () => {
      n++;
      const server = http2.createServer();
      server.on('stream', (s) => (s.respond({ ':status': 200 }), s.end('ok')));
      const sessions = new Set<http2.ServerHttp2Session>();
      server.on('session', (s) => sessions.add(s));
      return {
        inject: (socket) => void server.emit('connection', socket),
        close: async () => {
          for (const s of sessions) s.destroy();
        },
      };
    },
  };
}

/** One HTTP/2 GET of / on `port`; resolves with the body. */
function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = http2.connect(`http://127.0.0.1:${port}`);
    client.on('error', reject);
    const req = client.request({ ':path': '/' });
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => (client.close(), resolve(body)));
    req.on('error', reject);
  });
}

describe('deferred gRPC port', () => {
  it('a port in use fails with the message naming --grpc.address', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const { load } = h2Sink();
      await assert.rejects(
        reserveGrpcPort(`127.0.0.1:${port}`, { host: '127.0.0.1', port }, load),
        /^Error: gRPC server: cannot listen on 127\.0\.0\.1:\d+ \(--grpc\.address\): .*EADDRINUSE/,
      );
    } finally {
      blocker.close();
    }
  });

  it('a client connecting before the load is served once it is done, with no timer needed', async () => {
    const sink = h2Sink();
    const server = await reserveGrpcPort('127.0.0.1:0', { host: '127.0.0.1', port: 0 }, sink.load);
    try {
      assert.equal(sink.loads(), 0, 'nothing loads at bind');
      assert.equal(await get(server.port), 'ok');
      assert.equal(await get(server.port), 'ok');
      assert.equal(sink.loads(), 1);
    } finally {
      await server.close();
    }
  });

  it('a gRPC call made while grpc-js loads is answered by the query server (with its height header)', async () => {
    const seen: string[] = [];
    const deps = {
      headHeight: () => 7n,
      query: async (path: string, data: Uint8Array, height: bigint) => {
        seen.push(`${path} ${Buffer.from(data).toString()} ${height}`);
        return new Uint8Array(Buffer.from('answer'));
      },
    };
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = async () => {
      await gate;
      return queryGrpcSink(deps);
    };
    const server = await reserveGrpcPort('127.0.0.1:0', { host: '127.0.0.1', port: 0 }, load);
    const Client = grpc.makeGenericClientConstructor(rawService('cosmos.bank.v1beta1.Query', ['Balance']), 'q');
    const client = new Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    try {
      let header: string | undefined;
      const call = new Promise<Uint8Array>((resolve, reject) => {
        const c = client.makeUnaryRequest(
          '/cosmos.bank.v1beta1.Query/Balance',
          (b: Uint8Array) => Buffer.from(b),
          (b: Buffer) => new Uint8Array(b),
          new Uint8Array(Buffer.from('req')),
          (err: grpc.ServiceError | null, v?: Uint8Array) => (err ? reject(err) : resolve(v!)),
        );
        c.on('metadata', (md: grpc.Metadata) => (header = String(md.get(HEIGHT_HEADER)[0])));
      });
      // The client is connected and waiting: the query server is not built yet.
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(seen, []);
      release();
      assert.equal(Buffer.from(await call).toString(), 'answer');
      assert.deepEqual(seen, ['/cosmos.bank.v1beta1.Query/Balance req 7']);
      assert.equal(header, '7');
    } finally {
      client.close();
      await server.close();
    }
  });

  it('serveAfter loads without a client; close stops accepting', async () => {
    const sink = h2Sink();
    const server = await reserveGrpcPort('127.0.0.1:0', { host: '127.0.0.1', port: 0 }, sink.load);
    server.serveAfter(1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(sink.loads(), 1);
    await server.close();
    await assert.rejects(get(server.port), /ECONNREFUSED/);
  });

  it('only ip:port and [ipv6]:port take the deferred path', () => {
    assert.deepEqual(ipHostPort('127.0.0.1:9090'), { host: '127.0.0.1', port: 9090 });
    assert.deepEqual(ipHostPort('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(ipHostPort('0.0.0.0:9090'), { host: '0.0.0.0', port: 9090 });
    for (const a of ['localhost:9090', 'unix:/tmp/s', '127.0.0.1', '127.0.0.1:70000', '::1:9090', 'dns:x:1']) {
      assert.equal(ipHostPort(a), undefined, a);
    }
  });
});
