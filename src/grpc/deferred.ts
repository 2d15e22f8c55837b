// The gRPC port bound by a plain TCP server, with grpc-js loaded later. Loading grpc-js and building the query
// server cost ~40 ms of CPU at startup, which the first JSON-RPC answer does not need; but the readiness contract
// (src/compose/listeners.ts) wants the gRPC port accepting, or the start failed on it, before the HTTP JSON-RPC
// port opens. So the port is bound here first (same error as grpc-js's bind would give), and grpc-js loads once
// JSON-RPC is answering, or at once when a gRPC client connects: connections accepted meanwhile wait, unread
// (pauseOnConnect), and are handed to grpc-js's HTTP/2 server when it is ready. No grpc-js import here: the bundle
// evaluates it only when the loader runs.
import net from 'node:net';
import type { GrpcServer } from './server.ts';

/** Where accepted connections go once grpc-js is loaded (a connection injector of a grpc-js server). */
export interface ConnectionSink {
  inject(socket: net.Socket): void;
  /** Stops the gRPC server: calls in flight get a grace period, then are cut. */
  close(): Promise<void>;
}

/** A bound gRPC port whose server loads on demand. */
export interface DeferredGrpcServer extends GrpcServer {
  /** Loads the server after `delayMs` (or on the first connection, if sooner) and hands it every connection. */
  serveAfter(delayMs: number): void;
}

/** An address whose host is an IP literal: `ip:port` or `[ipv6]:port`; undefined for any other form. */
export function ipHostPort(address: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address);
  if (!m) return undefined;
  const host = m[1] ?? m[2]!;
  const port = Number(m[3]);
  return net.isIP(host) !== 0 && port <= 65535 ? { host, port } : undefined;
}

/**
 * Binds `host:port` for the gRPC server `load` builds. A bind failure rejects with the message the eager start
 * gives (naming --grpc.address). A failed load (it should not happen: it is code in the bundle) is logged and the
 * waiting connections are closed.
 */
export async function reserveGrpcPort(
  address: string,
  at: { host: string; port: number },
  load: () => Promise<ConnectionSink>,
): Promise<DeferredGrpcServer> {
  const tcp = net.createServer({ pauseOnConnect: true });
  const port = await new Promise<number>((resolve, reject) => {
    const onError = (e: Error) =>
      reject(new Error(`gRPC server: cannot listen on ${address} (--grpc.address): ${e.message}`));
    tcp.once('error', onError);
    tcp.listen(at.port, at.host, () => {
      tcp.off('error', onError);
      resolve((tcp.address() as net.AddressInfo).port);
    });
  });
  let waiting: net.Socket[] | undefined = [];
  let sink: ConnectionSink | undefined;
  let loading: Promise<ConnectionSink | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // Accepted paused; HTTP/2 takes the socket over but leaves it paused, so reading starts once handed over.
  const hand = (s: ConnectionSink, socket: net.Socket) => {
    s.inject(socket);
    socket.resume();
  };
  let failed = false;
  const start = (): Promise<ConnectionSink | undefined> =>
    (loading ??= load().then(
      (s) => {
        sink = s;
        const queued = waiting ?? [];
        waiting = undefined;
        for (const socket of queued) if (!socket.destroyed) hand(s, socket);
        return s;
      },
      (e: unknown) => {
        console.error('gRPC server failed to load:', e);
        failed = true;
        for (const socket of waiting ?? []) socket.destroy();
        waiting = [];
        return undefined;
      },
    ));
  tcp.on('connection', (socket: net.Socket) => {
    if (closed || failed) socket.destroy();
    else if (sink) hand(sink, socket);
    else {
      waiting?.push(socket);
      // A client is here: it waits for nothing but the load.
      void start();
    }
  });
  return {
    port,
    serveAfter(delayMs: number) {
      if (closed || loading) return;
      timer = setTimeout(() => void start(), delayMs);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      for (const socket of waiting ?? []) socket.destroy();
      waiting = [];
      // The TCP server's close waits for its connections (the gRPC sessions, which the sink closes) to end.
      const tcpClosed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      const s = await loading;
      await s?.close();
      await tcpClosed;
    },
  };
}
