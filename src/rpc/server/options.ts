// What both back ends share: their options, the running server they return, and the bounds they default to. Its
// own module so that the back ends (http.ts, ws.ts, uwsHttp.ts, uwsWs.ts, uwsListen.ts) and the chooser
// (transport.ts, which loads them lazily) all import it and no back end imports the chooser.
import type { BusyPoll } from './busyPoll.ts';
import type { Dispatcher, RpcLimits, RpcLogger } from './jsonrpc.ts';

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
