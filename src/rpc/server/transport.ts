// One transport interface, two back ends: uWebSockets.js (native HTTP and WebSocket) where its binary loads, and
// node:http + ws everywhere else. The choice is made once at start; both serve the same rules (rules.ts) and the
// same JSON-RPC envelope (jsonrpc.ts), so nothing above this file knows which one runs.
import type { BusyPoll } from './busyPoll.ts';
import type { Dispatcher, RpcLimits, RpcLogger } from './jsonrpc.ts';
import { procConnectionCountAvailable } from './openConnections.ts';
import { loadUws, type UwsLoad } from './uws.ts';

/** Which back end serves JSON-RPC. */
export type TransportKind = 'uws' | 'node';
/** What the operator asked for (`--json-rpc.transport`, app.toml `[json-rpc] transport`). */
export type TransportSetting = 'auto' | TransportKind;

/** Options of the HTTP transport (both back ends). */
export interface HttpServerOptions {
  host: string;
  port: number;
  dispatcher: Dispatcher;
  limits: RpcLimits;
  /** [] = no CORS headers at all; ['*'] = any origin; otherwise exact origins. */
  corsOrigins: string[];
  /** When set, `Authorization: Bearer <token>` marks the call as authorized. */
  authToken?: string;
  /** Time allowed to receive a whole request (headers and body); default 30 s. */
  requestTimeoutMs?: number;
  /** Open connections served at once; more are answered 503 and closed. Default 0 = no cap. */
  maxOpenConnections?: number;
  /** Host header names accepted (IP literals always are; '*' = any). Default: any. */
  allowedHosts?: string[];
  /** Polls the event loop briefly after each answer (shared by the node's listeners); none = sleep at once. */
  busyPoll?: BusyPoll;
  /**
   * Writes the replies answered in one turn of the event loop together, once every ready connection has been read
   * (uWS back end; node:http writes as it always has). Default false.
   */
  coalesceWrites?: boolean;
  log?: RpcLogger;
}

/** Options of the WebSocket transport (both back ends). */
export interface WsServerOptions {
  host: string;
  port: number;
  dispatcher: Dispatcher;
  limits: RpcLimits;
  /** Set at the handshake from `Authorization: Bearer <token>`; fixed for the connection's life. */
  authToken?: string;
  /** Allowed browser origins; undefined or [] = only localhost pages, ['*'] = any. */
  corsOrigins?: string[];
  /** Ping period; a client that has not ponged since the previous ping is dropped. Default 30 s. */
  pingIntervalMs?: number;
  /** Open connections (sockets, upgraded or not) served at once; more are refused with 503. Default 0 = no cap. */
  maxOpenConnections?: number;
  /**
   * Unsent bytes one connection may hold; past it the connection is closed (a client that stops reading cannot
   * grow the node's memory). Subscriptions are dropped earlier, at their own bound. Default 64 MiB.
   */
  maxBufferedBytes?: number;
  /** Polls the event loop briefly after each answer (shared by the node's listeners); none = sleep at once. */
  busyPoll?: BusyPoll;
  log?: RpcLogger;
}

/** Default hard bound on one WebSocket connection's unsent bytes. */
export const DEFAULT_WS_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

/** A listening server of either back end. */
export interface RunningServer {
  readonly transport: TransportKind;
  readonly port: number;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** The back end chosen at start, and why (for the one log line). */
export interface TransportChoice {
  kind: TransportKind;
  reason: string;
  /** Present when kind is 'uws'. */
  uws?: UwsLoad & { ok: true };
}

/**
 * Picks the back end: `node` when asked; `uws` when asked (an error if its binary does not load); `auto` takes uws
 * when its binary loads and every configured behaviour can be kept on it, node otherwise.
 */
export function chooseTransport(setting: TransportSetting, needs: { connectionCap: boolean }): TransportChoice {
  if (setting === 'node') return { kind: 'node', reason: 'node:http + ws, as configured (json-rpc.transport = node)' };
  const loaded = loadUws();
  if (!loaded.ok) {
    if (setting === 'uws') throw new Error(`json-rpc.transport = uws, but ${loaded.reason}`);
    return { kind: 'node', reason: `node:http + ws, because ${loaded.reason}` };
  }
  // uWebSockets.js reports no connection events to JavaScript; the cap counts the kernel's sockets instead.
  if (needs.connectionCap && !procConnectionCountAvailable()) {
    const why = 'max-open-connections needs /proc/net/tcp to count connections on uWebSockets.js';
    if (setting === 'uws') throw new Error(`json-rpc.transport = uws, but ${why}`);
    return { kind: 'node', reason: `node:http + ws, because ${why}` };
  }
  const how =
    setting === 'uws' ? 'as configured (json-rpc.transport = uws)' : 'its binary loads (json-rpc.transport = auto)';
  return { kind: 'uws', reason: `uWebSockets.js ${loaded.version} (${loaded.binary}), ${how}`, uws: loaded };
}

/** Starts the HTTP JSON-RPC server on the chosen back end. */
export async function startHttpTransport(choice: TransportChoice, opts: HttpServerOptions): Promise<RunningServer> {
  if (choice.kind === 'uws') {
    const { startUwsHttpServer } = await import('./uwsHttp.ts');
    return startUwsHttpServer(choice.uws!.module, opts);
  }
  const { startHttpServer } = await import('./http.ts');
  return startHttpServer(opts);
}

/** Starts the WebSocket JSON-RPC server on the chosen back end. */
export async function startWsTransport(choice: TransportChoice, opts: WsServerOptions): Promise<RunningServer> {
  if (choice.kind === 'uws') {
    const { startUwsWsServer } = await import('./uwsWs.ts');
    return startUwsWsServer(choice.uws!.module, opts);
  }
  const { startWsServer } = await import('./ws.ts');
  return startWsServer(opts);
}
