import { Agent, request } from 'node:http';
import type { RpcResponse } from './node.ts';

/**
 * One keep-alive HTTP connection to a node, used by one of the soak's loops. The soak counts the node's open file
 * descriptors; loops that shared global fetch's pool made that count swing by several sockets as the pool opened
 * and idled connections, which hid the node's own fds. One connection per loop keeps the load's share constant.
 */
export interface SoakConnection {
  /** Posts one JSON-RPC request on this connection; rejects on a transport failure or timeout. */
  rpc<T = unknown>(method: string, params?: unknown[], timeoutMs?: number): Promise<RpcResponse<T>>;
  /** Like rpc() but returns `result`, and throws on a JSON-RPC error too. */
  result<T = any>(method: string, params?: unknown[], timeoutMs?: number): Promise<T>;
  /** GETs a path on this connection and returns the body. */
  get(path: string, timeoutMs?: number): Promise<string>;
  /** Closes the connection. */
  close(): void;
}

let nextId = 1;

/** Opens a connection object for `url` (the socket itself opens with the first request and is then kept). */
export function soakConnection(url: string): SoakConnection {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: 'GET' | 'POST', path: string, body: string | undefined, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const u = new URL(path, url);
      const req = request(
        u,
        {
          method,
          agent,
          headers:
            body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
            else resolve(text);
          });
          res.on('error', reject);
        },
      );
      // A timed-out request destroys its socket; the next request opens a fresh one.
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  const rpc = async <T>(method: string, params: unknown[] = [], timeoutMs = 30_000): Promise<RpcResponse<T>> => {
    const text = await send('POST', url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }), timeoutMs);
    try {
      return JSON.parse(text) as RpcResponse<T>;
    } catch {
      throw new Error(`${method}: body is not JSON: ${text.slice(0, 300)}`);
    }
  };
  return {
    rpc,
    async result<T>(method: string, params: unknown[] = [], timeoutMs?: number): Promise<T> {
      const r = await rpc<T>(method, params, timeoutMs);
      if (r.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
      return r.result as T;
    },
    get: (path, timeoutMs = 30_000) => send('GET', path, undefined, timeoutMs),
    close: () => agent.destroy(),
  };
}
