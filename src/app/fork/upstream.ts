// The forked chain's upstream: batched JSON-RPC over HTTP with a timeout per request and bounded retries, so a
// dead or slow upstream turns into an UpstreamError naming it (never a hang). Counts its HTTP requests so tests
// and operators can see what forking costs.
import { UpstreamError } from '../../errors/index.ts';

/** One JSON-RPC call of a batch. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** How the client talks to the upstream. */
export interface UpstreamOptions {
  /** Per HTTP request. */
  timeoutMs: number;
  /** Extra attempts after the first when the request fails or times out. */
  retries: number;
  /** Calls per HTTP request (public endpoints cap batches; 100 suits geth, Anvil and Kestrel). */
  batchSize: number;
}

const DEFAULTS: UpstreamOptions = { timeoutMs: 10_000, retries: 2, batchSize: 100 };

/** A JSON-RPC client for the fork's upstream. */
export class Upstream {
  /** HTTP requests sent (each carries one batch). */
  requests = 0;
  private nextId = 1;
  private readonly opts: UpstreamOptions;

  constructor(
    readonly url: string,
    opts: Partial<UpstreamOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** One call. */
  async call(method: string, params: unknown[]): Promise<unknown> {
    const [r] = await this.batch([{ method, params }]);
    return r;
  }

  /** The results of `calls`, in order, sent in batches of batchSize (concurrently). */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    const chunks: RpcCall[][] = [];
    for (let i = 0; i < calls.length; i += this.opts.batchSize) chunks.push(calls.slice(i, i + this.opts.batchSize));
    const results = await Promise.all(chunks.map((c) => this.send(c)));
    return results.flat();
  }

  private async send(calls: readonly RpcCall[]): Promise<unknown[]> {
    let last: UpstreamError | undefined;
    for (let attempt = 0; attempt <= this.opts.retries; attempt++) {
      try {
        return await this.sendOnce(calls);
      } catch (e) {
        if (!(e instanceof UpstreamError)) throw e;
        // An error the upstream answered with will be answered again: only transport failures are retried.
        if (e.reason === 'rpcError') throw e;
        last = e;
      }
    }
    throw last!;
  }

  private async sendOnce(calls: readonly RpcCall[]): Promise<unknown[]> {
    const first = this.nextId;
    const body = calls.map((c) => ({ jsonrpc: '2.0', id: this.nextId++, method: c.method, params: c.params }));
    this.requests++;
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      const detail = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
      throw new UpstreamError(timedOut ? 'timeout' : 'unreachable', this.url, detail);
    }
    if (!res.ok) throw new UpstreamError('badResponse', this.url, `HTTP ${res.status}`);
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new UpstreamError('badResponse', this.url, 'reply is not JSON');
    }
    if (!Array.isArray(json)) throw new UpstreamError('badResponse', this.url, 'reply is not a batch');
    const out = new Array<unknown>(calls.length);
    const seen = new Array<boolean>(calls.length).fill(false);
    for (const r of json as Array<{ id?: unknown; result?: unknown; error?: { message?: string } }>) {
      const i = typeof r.id === 'number' ? r.id - first : -1;
      if (i < 0 || i >= calls.length) continue;
      if (r.error) {
        throw new UpstreamError('rpcError', this.url, `${calls[i]!.method}: ${r.error.message ?? 'error'}`);
      }
      out[i] = r.result;
      seen[i] = true;
    }
    if (seen.includes(false)) throw new UpstreamError('badResponse', this.url, 'batch reply lacks answers');
    return out;
  }
}
