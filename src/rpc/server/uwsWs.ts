// JSON-RPC over WebSocket on uWebSockets.js: the same rules as ws.ts (one handleBody per frame, replies in completion
// order, auth decided at the upgrade, Origin checks, ping/pong liveness, a bound on unsent bytes), on a native server.
import { isAuthorized, wsOriginAllowed } from './auth.ts';
import { handleBody, stderrLogger, whenReady } from './jsonrpc.ts';
import type { CallMeta, RpcLogger, WsConnection } from './jsonrpc.ts';
import { refusalBody, STATUS_LINE } from './rules.ts';
import { DEFAULT_WS_MAX_BUFFERED_BYTES } from './options.ts';
import type { RunningServer, WsServerOptions } from './options.ts';
import type { UwsModule, WebSocket } from './uws.ts';
import { UwsListener } from './uwsListen.ts';
import { errorText } from '../../log/logger.ts';

/** Per-connection state. */
interface Conn {
  readonly id: number;
  readonly meta: CallMeta;
  ws?: WebSocket<UserData>;
  closed: boolean;
  alive: boolean;
  readonly closeHooks: Array<() => void>;
}

/** uWS copies the user data's properties onto its own object, so the state travels as one reference. */
interface UserData {
  conn: Conn;
}

/** Builds the handle a method keeps to push messages and learn about disconnects. */
function makeConnection(conn: Conn, log: RpcLogger): WsConnection {
  return {
    id: conn.id,
    send(message) {
      if (conn.closed) return;
      // Pushes usually run from timers or event handlers, where a throw would take the process down.
      try {
        const data = JSON.stringify(message);
        conn.ws!.cork(() => conn.ws!.send(data, false));
      } catch (e) {
        log(`rpc: ws push on connection ${conn.id} failed: ${errorText(e)}`);
      }
    },
    onClose(fn) {
      if (conn.closed) queueMicrotask(fn);
      else conn.closeHooks.push(fn);
    },
    bufferedAmount: () => (conn.closed ? 0 : conn.ws!.getBufferedAmount()),
  };
}

/** Starts the WebSocket JSON-RPC server on uWebSockets.js; resolves once it listens (port 0 picks a free port). */
export async function startUwsWsServer(uws: UwsModule, opts: WsServerOptions): Promise<RunningServer> {
  const { dispatcher, limits, authToken, busyPoll } = opts;
  const log = opts.log ?? stderrLogger;
  const pingIntervalMs = opts.pingIntervalMs ?? 30_000;
  const open = new Set<Conn>();
  let nextConnectionId = 1;

  const app = uws.App();
  const listener = new UwsListener(uws, app, opts.host, opts.maxOpenConnections ?? 0, log);
  app.ws<UserData>('/*', {
    maxPayloadLength: limits.maxBodyBytes,
    // Liveness is Kestrel's own ping round (below), as on the node back end; uWS's idle timer is off.
    idleTimeout: 0,
    sendPingsAutomatically: false,
    // Compression is off: inflating attacker frames costs memory that maxPayload does not bound up front.
    compression: 0,
    // A client that stops reading is closed once this many bytes wait for it (uWS would otherwise drop messages).
    maxBackpressure: opts.maxBufferedBytes ?? DEFAULT_WS_MAX_BUFFERED_BYTES,
    closeOnBackpressureLimit: 1,
    upgrade(res, req, context) {
      const origin = req.getHeader('origin');
      if (!wsOriginAllowed(origin === '' ? undefined : origin, opts.corsOrigins)) {
        res.writeStatus(STATUS_LINE[403]!).end('', true);
        return;
      }
      const conn: Conn = {
        id: nextConnectionId++,
        meta: {
          transport: 'ws',
          authorized: authToken !== undefined && isAuthorized(req.getHeader('authorization'), authToken),
        },
        closed: false,
        alive: true,
        closeHooks: [],
      };
      conn.meta.connection = makeConnection(conn, log);
      res.upgrade<UserData>(
        { conn },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    open(ws) {
      const conn = ws.getUserData().conn;
      conn.ws = ws;
      open.add(conn);
    },
    message(ws, message) {
      const conn = ws.getUserData().conn;
      // Any inbound traffic proves the peer is alive, even if its pong is queued behind a large frame.
      conn.alive = true;
      // Decoded now: uWS reuses the message's memory once this callback returns.
      const text = Buffer.from(message).toString('utf8');
      whenReady(
        handleBody(text, dispatcher, conn.meta, limits, log),
        (reply) => {
          if (reply !== undefined && !conn.closed) conn.ws!.cork(() => conn.ws!.send(reply, false));
          busyPoll?.touch();
        },
        (e: unknown) => log(`rpc: ws handler failed: ${errorText(e)}`),
      );
    },
    pong(ws) {
      ws.getUserData().conn.alive = true;
    },
    close(ws) {
      const conn = ws.getUserData().conn;
      conn.closed = true;
      open.delete(conn);
      for (const fn of conn.closeHooks.splice(0)) {
        // One failing cleanup must not skip the others (e.g. several subscriptions on one socket).
        try {
          fn();
        } catch (e) {
          log(`rpc: ws close hook failed: ${errorText(e)}`);
        }
      }
    },
  });
  app.any('/*', (res) => {
    res
      .writeStatus(STATUS_LINE[426]!)
      .writeHeader('Upgrade', 'websocket')
      .writeHeader('Content-Type', 'application/json')
      .end(refusalBody('websocket upgrade required'));
  });

  const pinger = setInterval(() => {
    for (const conn of open) {
      if (!conn.alive) {
        conn.ws!.close();
        continue;
      }
      conn.alive = false;
      conn.ws!.ping();
    }
  }, pingIntervalMs);
  pinger.unref();

  return listener.serve(opts.port, pinger, () => {
    for (const conn of [...open]) conn.ws!.close();
  });
}
