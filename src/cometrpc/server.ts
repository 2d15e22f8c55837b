// The CometBFT-compatible RPC transport on --rpc.laddr: JSON-RPC 2.0 POST to / (single or batch) and URI GET
// (/status, /abci_query?path="…"&data=0x…&height=5), answering with CometBFT's envelope and error codes, so the
// CLI's --node and cosmjs's Comet38Client work against a solo node as against CometBFT.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { InvalidParamsError } from '../errors/index.ts';
import { chainMethods } from './chainMethods.ts';
import { CometInternalError, cometMethods, type CometDeps, type CometMethod } from './methods.ts';
import { attachWebsocket } from './websocket.ts';
import { argsFromJson, argsFromUri, type Args } from './params.ts';
import { closeServer, listen } from '../rpc/server/listen.ts';

/** CometBFT's default rpc.max_body_bytes. */
const MAX_BODY_BYTES = 1_000_000;

/** A running CometBFT-compatible RPC server. */
export interface CometRpcServer {
  port: number;
  close(): Promise<void>;
}

interface RpcErrorBody {
  code: number;
  message: string;
  data: string;
}

function errorBody(e: unknown): RpcErrorBody {
  if (e instanceof InvalidParamsError) return { code: -32602, message: 'Invalid params', data: e.message };
  if (e instanceof CometInternalError) return { code: -32603, message: 'Internal error', data: e.message };
  console.error('CometBFT RPC handler failed:', e);
  return { code: -32603, message: 'Internal error', data: 'internal error' };
}

/** Every method this server answers, by wire name. */
const METHODS: Record<string, CometMethod> = { ...cometMethods, ...chainMethods };

async function call(deps: CometDeps, method: unknown, args: (spec: CometMethod['args']) => Args) {
  const m = typeof method === 'string' && Object.hasOwn(METHODS, method) ? METHODS[method]! : undefined;
  if (!m) return { error: { code: -32601, message: 'Method not found', data: '' } };
  try {
    return { result: await m.handler(deps, args(m.args)) };
  } catch (e) {
    return { error: errorBody(e) };
  }
}

async function handleJson(deps: CometDeps, req: unknown): Promise<object> {
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    return {
      jsonrpc: '2.0',
      id: -1,
      error: { code: -32600, message: 'Invalid Request', data: 'expected a JSON-RPC object' },
    };
  }
  const r = req as { id?: unknown; method?: unknown; params?: unknown };
  const id = r.id ?? -1;
  return { jsonrpc: '2.0', id, ...(await call(deps, r.method, (spec) => argsFromJson(spec, r.params))) };
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((res, rej) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        res(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => res(Buffer.concat(chunks)));
    req.on('error', rej);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function handle(deps: CometDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && url.pathname !== '/') {
    const out = await call(deps, url.pathname.slice(1), (spec) => argsFromUri(spec, url.searchParams));
    send(res, 'error' in out ? 500 : 200, { jsonrpc: '2.0', id: -1, ...out });
    return;
  }
  if (req.method === 'GET') {
    const routes = [...Object.keys(METHODS), 'websocket'].sort().map((m) => `//${req.headers.host ?? ''}/${m}`);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`Available endpoints:\n${routes.join('\n')}\n`);
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'GET, POST' }).end();
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    send(res, 413, {
      jsonrpc: '2.0',
      id: -1,
      error: { code: -32600, message: 'Invalid Request', data: 'request body too large' },
    });
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (e) {
    send(res, 200, {
      jsonrpc: '2.0',
      id: -1,
      error: { code: -32700, message: 'Parse error', data: (e as Error).message },
    });
    return;
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) {
      send(res, 200, {
        jsonrpc: '2.0',
        id: -1,
        error: { code: -32600, message: 'Invalid Request', data: 'empty batch' },
      });
      return;
    }
    send(res, 200, await Promise.all(parsed.map((r) => handleJson(deps, r))));
    return;
  }
  send(res, 200, await handleJson(deps, parsed));
}

/** Parses tcp://host:port (CometBFT's laddr form; a bare host:port is accepted too). */
export function parseLaddr(laddr: string): { host: string; port: number } {
  const m = /^(?:tcp:\/\/)?\[?([^\]]*?)\]?:(\d{1,5})$/.exec(laddr.trim());
  if (!m || Number(m[2]) > 65535) throw new Error(`invalid --rpc.laddr "${laddr}": expected tcp://host:port`);
  return { host: m[1] === '' ? '0.0.0.0' : m[1]!, port: Number(m[2]) };
}

/** Starts the server on laddr; a failed bind is a startup error naming the flag. */
export async function startCometRpcServer(laddr: string, deps: CometDeps): Promise<CometRpcServer> {
  const { host, port } = parseLaddr(laddr);
  const server = createServer((req, res) => {
    handle(deps, req, res).catch((e: unknown) => {
      console.error('CometBFT RPC request failed:', e);
      if (!res.headersSent)
        send(res, 500, {
          jsonrpc: '2.0',
          id: -1,
          error: { code: -32603, message: 'Internal error', data: 'internal error' },
        });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  const bound = await listen(server, port, host).catch((e: Error) => {
    throw new Error(`CometBFT RPC server: cannot listen on ${laddr} (--rpc.laddr): ${e.message}`);
  });
  const detach = attachWebsocket(server, deps, (req) => handleJson(deps, req));
  return {
    port: bound,
    close: () => {
      detach();
      return closeServer(server);
    },
  };
}
