// The gRPC port bound before grpc-js loads: the bind fails as grpc-js's would, a client that connects before the
// load is served once it is done, and only IP-literal addresses take this path.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { describe, it } from 'node:test';
import { ipHostPort, reserveGrpcPort, type ConnectionSink } from './deferred.ts';

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
