// JSON-RPC over WebSocket: one handleBody per frame, replies in completion order, liveness by ping/pong.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { RawData } from 'ws';
import { INVALID_REQUEST } from '../errors.ts';
import { isAuthorized, wsOriginAllowed } from './auth.ts';
import { ConnectionCap } from './connections.ts';
import { errorResponse, handleBody, stderrLogger, whenReady } from './jsonrpc.ts';
import type { CallMeta, RpcLogger, WsConnection } from './jsonrpc.ts';
import { closeServer, listen } from './listen.ts';
import { DEFAULT_WS_MAX_BUFFERED_BYTES } from './options.ts';
import type { RunningServer, WsServerOptions } from './options.ts';
import { errorText } from '../../log/logger.ts';

/** Options of the WebSocket transport (declared with the transport interface). */
export type { WsServerOptions } from './options.ts';

/** A running WebSocket transport on node:http + ws. */
export interface RunningWsServer extends RunningServer {
  server: http.Server;
  wss: WebSocketServer;
}

interface ConnState {
  alive: boolean;
}

function rawToBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function rejectUpgrade(socket: Duplex, status: number, reason: string, message?: string): void {
  if (socket.writable) {
    const body = message === undefined ? '' : errorResponse(null, { code: INVALID_REQUEST, message });
    const type = message === undefined ? '' : 'Content-Type: application/json\r\n';
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n${type}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Sends, then closes the connection when its unsent bytes pass the bound (the client has stopped reading). */
function sendBounded(socket: WebSocket, data: string, maxBuffered: number): void {
  socket.send(data);
  if (socket.bufferedAmount > maxBuffered) socket.terminate();
}

/** Builds the handle a method keeps to push messages and learn about disconnects. */
function makeConnection(id: number, socket: WebSocket, maxBuffered: number, log: RpcLogger): WsConnection {
  const closeHooks: Array<() => void> = [];
  let closed = false;
  socket.once('close', () => {
    closed = true;
    for (const fn of closeHooks.splice(0)) {
      // One failing cleanup must not skip the others (e.g. several subscriptions on one socket).
      try {
        fn();
      } catch (e) {
        log(`rpc: ws close hook failed: ${errorText(e)}`);
      }
    }
  });
  return {
    id,
    send(message) {
      if (socket.readyState !== WebSocket.OPEN) return;
      // Pushes usually run from timers or event handlers, where a throw would take the process down.
      try {
        sendBounded(socket, JSON.stringify(message), maxBuffered);
      } catch (e) {
        log(`rpc: ws push on connection ${id} failed: ${errorText(e)}`);
      }
    },
    onClose(fn) {
      if (closed) queueMicrotask(fn);
      else closeHooks.push(fn);
    },
    bufferedAmount: () => socket.bufferedAmount,
  };
}

/** Starts the WebSocket JSON-RPC server; resolves once it listens (port 0 picks a free port). */
export async function startWsServer(opts: WsServerOptions): Promise<RunningWsServer> {
  const { dispatcher, limits, authToken, busyPoll } = opts;
  const log = opts.log ?? stderrLogger;
  const pingIntervalMs = opts.pingIntervalMs ?? 30_000;
  const maxBuffered = opts.maxBufferedBytes ?? DEFAULT_WS_MAX_BUFFERED_BYTES;
  let nextConnectionId = 1;
  const states = new Map<WebSocket, ConnState>();

  const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (_req, res) => {
    const body = errorResponse(null, { code: INVALID_REQUEST, message: 'websocket upgrade required' });
    res.writeHead(426, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      Upgrade: 'websocket',
    });
    res.end(body);
  });
  // Compression is off: inflating attacker frames costs memory that maxPayload does not bound up front.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxBodyBytes, perMessageDeflate: false });

  const cap = new ConnectionCap(opts.maxOpenConnections ?? 0);
  cap.track(server);
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (cap.isOver(req.socket)) {
      rejectUpgrade(socket, 503, 'Service Unavailable', cap.message());
      return;
    }
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    if (!wsOriginAllowed(origin, opts.corsOrigins)) {
      rejectUpgrade(socket, 403, 'Forbidden');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (socket: WebSocket, req: http.IncomingMessage) => {
    const state: ConnState = { alive: true };
    states.set(socket, state);
    const connection = makeConnection(nextConnectionId++, socket, maxBuffered, log);
    const meta: CallMeta = {
      transport: 'ws',
      authorized: isAuthorized(req.headers.authorization, authToken),
      connection,
    };
    // ws emits 'error' for protocol violations such as an oversized frame (it already closes with 1009);
    // without a listener that error would be thrown and take the whole node down.
    socket.on('error', () => socket.terminate());
    socket.on('pong', () => {
      state.alive = true;
    });
    socket.once('close', () => states.delete(socket));
    socket.on('message', (data: RawData) => {
      // Any inbound traffic proves the peer is alive, even if its pong is queued behind a large frame.
      state.alive = true;
      whenReady(
        handleBody(rawToBuffer(data), dispatcher, meta, limits, log),
        (reply) => {
          if (reply !== undefined && socket.readyState === WebSocket.OPEN) sendBounded(socket, reply, maxBuffered);
          busyPoll?.touch();
        },
        (e: unknown) => log(`rpc: ws handler failed: ${errorText(e)}`),
      );
    });
  });

  const pinger = setInterval(() => {
    for (const [socket, state] of states) {
      if (!state.alive) {
        socket.terminate();
        continue;
      }
      state.alive = false;
      try {
        socket.ping();
      } catch {
        socket.terminate();
      }
    }
  }, pingIntervalMs);
  pinger.unref();

  let port: number;
  try {
    port = await listen(server, opts.port, opts.host);
  } catch (e) {
    clearInterval(pinger);
    throw e;
  }
  server.on('error', (e) => log(`rpc: ws server error: ${errorText(e)}`));
  return {
    transport: 'node',
    server,
    wss,
    port,
    close: () => {
      clearInterval(pinger);
      for (const socket of wss.clients) socket.terminate();
      wss.close();
      return closeServer(server);
    },
  };
}
