// A small keep-alive JSON-RPC client over node:http, with a per-request deadline so a node that hangs a request
// (Ganache under concurrent senders) turns into an error instead of a stuck benchmark.
import http from 'node:http';

/** A JSON-RPC error answer (the node rejected the call). */
export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`${method}: ${rpcMessage} (code ${code})`);
  }
}

/** JSON-RPC over HTTP to one node; close() drops the pooled sockets. */
export class RpcClient {
  private readonly agent: http.Agent;
  private readonly target: URL;
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
    maxSockets = 64,
  ) {
    this.target = new URL(url);
    // Idle sockets time out after 5 s, as on Node's global agent: uWS closes idle keep-alive connections after 10 s.
    this.agent = new http.Agent({ keepAlive: true, maxSockets, timeout: 5_000 });
  }

  /** Calls one method; resolves to its result, rejects with RpcCallError on an error answer. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    const res = (await this.post(body, this.timeoutMs)) as { result?: T; error?: { code: number; message: string } };
    if (res.error !== undefined) throw new RpcCallError(method, res.error.code, res.error.message);
    if (!('result' in res)) throw new Error(`${method}: answer has neither result nor error`);
    return res.result as T;
  }

  /** Posts a raw body and resolves to the parsed JSON answer. */
  post(body: string, timeoutMs = this.timeoutMs): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.target.hostname,
          port: this.target.port,
          path: this.target.pathname,
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new Error(`HTTP ${res.statusCode}: not JSON: ${text.slice(0, 200)}`));
            }
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Destroys the pooled sockets (pending requests fail). */
  close(): void {
    this.agent.destroy();
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
