// One transport interface, two back ends: uWebSockets.js (native HTTP and WebSocket) where its binary loads, and
// node:http + ws everywhere else. The choice is made once at start; both serve the same rules (rules.ts) and the
// same JSON-RPC envelope (jsonrpc.ts), so nothing above this file knows which one runs.
import type { HttpServerOptions, RunningServer, TransportKind, TransportSetting, WsServerOptions } from './options.ts';
import { procConnectionCountAvailable } from './openConnections.ts';
import { loadUws, type UwsLoad } from './uws.ts';

export type { HttpServerOptions, RunningServer, TransportKind, TransportSetting, WsServerOptions } from './options.ts';

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
