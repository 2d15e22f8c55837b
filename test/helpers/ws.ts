// A minimal JSON-RPC WebSocket client for tests: request/response by id, plus raw frames for bad-input tests.
import WebSocket from 'ws';
import type { RpcResponse } from './node.ts';

/**
 * Opens a WebSocket to `url` (with `headers` on the upgrade request) and resolves once it is open; rejects when the
 * upgrade is refused or does not complete within `timeoutMs`.
 */
export async function openSocket(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<WebSocket> {
  const sock = new WebSocket(url, { headers });
  await new Promise<void>((res, rej) => {
    const t = setTimeout(() => {
      sock.terminate();
      rej(new Error(`ws connect to ${url} timed out`));
    }, timeoutMs);
    sock.once('open', () => {
      clearTimeout(t);
      res();
    });
    sock.once('error', (e) => {
      clearTimeout(t);
      rej(e);
    });
  });
  return sock;
}

/** Sends one JSON payload on a fresh connection and resolves with the first message back, parsed; then closes. */
export async function wsExchange(url: string, payload: unknown, headers: Record<string, string> = {}): Promise<any> {
  const sock = await openSocket(url, headers);
  try {
    const answer = new Promise<any>((res) => sock.once('message', (d) => res(JSON.parse(d.toString()))));
    sock.send(JSON.stringify(payload));
    return await answer;
  } finally {
    sock.close();
  }
}

export class WsRpc {
  private nextId = 1;
  private readonly pending = new Map<string, (msg: unknown) => void>();
  /** Messages that matched no pending id (raw-frame answers, notifications). */
  private readonly unmatched: unknown[] = [];
  private unmatchedWaiters: Array<(msg: unknown) => void> = [];
  private closed = false;

  private constructor(private readonly sock: WebSocket) {
    sock.on('message', (data) => {
      let msg: unknown;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        msg = { unparsable: data.toString() };
      }
      const id =
        msg !== null && typeof msg === 'object' && !Array.isArray(msg) ? (msg as { id?: unknown }).id : undefined;
      const key = id === undefined ? undefined : JSON.stringify(id);
      if (key !== undefined && this.pending.has(key)) {
        const cb = this.pending.get(key)!;
        this.pending.delete(key);
        cb(msg);
        return;
      }
      const waiter = this.unmatchedWaiters.shift();
      if (waiter) waiter(msg);
      else this.unmatched.push(msg);
    });
    sock.on('close', () => {
      this.closed = true;
    });
  }

  /** Connects to `url` (with `headers` on the upgrade request, e.g. a bearer token). */
  static async connect(url: string, timeoutMs = 10_000, headers: Record<string, string> = {}): Promise<WsRpc> {
    return new WsRpc(await openSocket(url, headers, timeoutMs));
  }

  get isOpen(): boolean {
    return !this.closed && this.sock.readyState === WebSocket.OPEN;
  }

  /** Sends a request with a fresh numeric id and resolves with the full response object. */
  request<T = unknown>(method: string, params: unknown[] = [], timeoutMs = 15_000): Promise<RpcResponse<T>> {
    const id = this.nextId++;
    return this.sendWithId<T>(id, { jsonrpc: '2.0', id, method, params }, timeoutMs);
  }

  /** Like request() but returns `result` and throws on a JSON-RPC error. */
  async result<T = any>(method: string, params: unknown[] = []): Promise<T> {
    const r = await this.request<T>(method, params);
    if (r.error !== undefined) throw new Error(`ws ${method} failed: ${JSON.stringify(r.error)}`);
    if (!('result' in r)) throw new Error(`ws ${method}: response has neither result nor error: ${JSON.stringify(r)}`);
    return r.result as T;
  }

  /** Sends an object whose id the caller chose (string ids etc.) and waits for the answer with that id. */
  sendWithId<T = unknown>(id: unknown, body: unknown, timeoutMs = 15_000): Promise<RpcResponse<T>> {
    const key = JSON.stringify(id);
    return new Promise((res, rej) => {
      const t = setTimeout(() => {
        this.pending.delete(key);
        rej(new Error(`ws: no answer for id ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(key, (msg) => {
        clearTimeout(t);
        res(msg as RpcResponse<T>);
      });
      this.sock.send(JSON.stringify(body));
    });
  }

  /** Sends a raw text frame and resolves with the next message that matches no pending request. */
  sendRaw(text: string, timeoutMs = 10_000): Promise<unknown> {
    const p = this.nextUnmatched(timeoutMs);
    this.sock.send(text);
    return p;
  }

  /** Sends a raw text frame without waiting for anything (notifications). */
  sendRawNoWait(text: string): void {
    this.sock.send(text);
  }

  /** Resolves with the next unmatched message (already queued or future). */
  nextUnmatched(timeoutMs = 10_000): Promise<unknown> {
    const queued = this.unmatched.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((res, rej) => {
      const waiter = (msg: unknown) => {
        clearTimeout(t);
        res(msg);
      };
      const t = setTimeout(() => {
        this.unmatchedWaiters = this.unmatchedWaiters.filter((w) => w !== waiter);
        rej(new Error(`ws: no unmatched message within ${timeoutMs} ms`));
      }, timeoutMs);
      this.unmatchedWaiters.push(waiter);
    });
  }

  /** Unmatched messages received so far (drains the queue). */
  drainUnmatched(): unknown[] {
    return this.unmatched.splice(0);
  }

  close(): Promise<void> {
    if (this.sock.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((res) => {
      const t = setTimeout(() => {
        this.sock.terminate();
        res();
      }, 2000);
      this.sock.once('close', () => {
        clearTimeout(t);
        res();
      });
      this.sock.close();
    });
  }
}
