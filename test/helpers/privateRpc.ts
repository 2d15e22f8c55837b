// JSON-RPC calls to the private namespaces (miner_, personal_): the bearer token from <home>/config/auth.token.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KestrelNode, RpcResponse } from './node.ts';
import { post } from './node.ts';

/** The node's bearer token. */
export function authToken(node: KestrelNode): string {
  return readFileSync(join(node.home, 'config', 'auth.token'), 'utf8').trim();
}

/** Posts one request with `Authorization: Bearer <token>` and returns the whole response object. */
export async function privateRpc<T = any>(
  node: KestrelNode,
  method: string,
  params: unknown[] = [],
): Promise<RpcResponse<T>> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const res = await post(node.http, body, { headers: { authorization: `Bearer ${authToken(node)}` } });
  if (res.json === undefined) throw new Error(`${method}: HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json as RpcResponse<T>;
}
