// JSON-RPC request counts and latency histograms per method and transport. This sits on the hot path of every
// request, so a call costs two map lookups (no key strings built), a counter increment and a bucket increment
// into preallocated arrays; the Prometheus values are only assembled when the page is scraped.
import type { CallMeta, Dispatcher } from '../rpc/server/jsonrpc.ts';

/** Latency bucket bounds in seconds (a JSON-RPC read is tens of µs; traces and eth_call can take seconds). */
export const RPC_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Counts and histogram of one (method, transport). */
class Series {
  count = 0;
  errors = 0;
  sum = 0;
  readonly buckets = new Float64Array(RPC_BUCKETS.length);
  constructor(
    readonly method: string,
    readonly transport: string,
  ) {}

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    for (let i = 0; i < RPC_BUCKETS.length; i++) {
      if (seconds <= RPC_BUCKETS[i]!) {
        this.buckets[i]!++;
        return;
      }
    }
  }
}

/** A value in prom-client's metric shape (what Registry formats). */
interface PromValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** Unknown method names share one label value so a client cannot blow up the series count. */
const OTHER = 'other';

/** The per-method, per-transport RPC series. */
export class RpcMetrics {
  private readonly byTransport = new Map<string, Map<string, Series>>();
  private readonly all: Series[] = [];

  /** `known(method)`: whether the method exists (others are counted as "other"). */
  constructor(private readonly known: (method: string) => boolean) {}

  /** The series of a call, created on first use. */
  series(method: string, transport: string): Series {
    let t = this.byTransport.get(transport);
    if (!t) {
      t = new Map();
      this.byTransport.set(transport, t);
    }
    let s = t.get(method);
    if (s) return s;
    const label = this.known(method) ? method : OTHER;
    s = t.get(label);
    if (!s) {
      s = new Series(label, transport);
      this.all.push(s);
      t.set(label, s);
    }
    // Remember unknown names only while few, so a flood of random names cannot grow the map.
    if (label !== OTHER || t.size < 1000) t.set(method, s);
    return s;
  }

  /** Wraps a dispatcher so every call is counted and timed; `onError` sees each failed call (off the hot path). */
  instrument(inner: Dispatcher, onError?: (method: string, e: unknown) => void): Dispatcher {
    return {
      // Not async: a method that answers synchronously (eth_blockNumber, a cached balance) stays synchronous, so the
      // transport's promise-free path holds with metrics on.
      call: (method: string, params: unknown[], meta: CallMeta): unknown => {
        const s = this.series(method, meta.transport);
        const t0 = performance.now();
        const failed = (e: unknown): never => {
          s.errors++;
          onError?.(method, e);
          s.observe((performance.now() - t0) / 1000);
          throw e;
        };
        let r: unknown;
        try {
          r = inner.call(method, params, meta);
        } catch (e) {
          return failed(e);
        }
        if (!(r instanceof Promise)) {
          s.observe((performance.now() - t0) / 1000);
          return r;
        }
        return r.then((v: unknown) => {
          s.observe((performance.now() - t0) / 1000);
          return v;
        }, failed);
      },
    };
  }

  /** prom-client metric objects (name + get()) for the registry: requests, errors and the latency histogram. */
  promMetrics(prefix: string): Array<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: PromValue[] }>;
  }> {
    const make = (name: string, help: string, type: string, values: () => PromValue[]) => ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      // prom-client's Registry calls these on its metrics; the series live here, so there is nothing to reset.
      reset: () => {},
    });
    const labels = (s: Series) => ({ method: s.method, transport: s.transport });
    return [
      make(`${prefix}rpc_requests_total`, 'JSON-RPC calls answered, per method and transport', 'counter', () =>
        this.all.map((s) => ({ value: s.count, labels: labels(s) })),
      ),
      make(
        `${prefix}rpc_errors_total`,
        'JSON-RPC calls answered with an error, per method and transport',
        'counter',
        () => this.all.map((s) => ({ value: s.errors, labels: labels(s) })),
      ),
      make(
        `${prefix}rpc_request_duration_seconds`,
        'JSON-RPC call latency (dispatch to result), per method and transport',
        'histogram',
        () => {
          const out: PromValue[] = [];
          const name = `${prefix}rpc_request_duration_seconds`;
          for (const s of this.all) {
            let cum = 0;
            for (let i = 0; i < RPC_BUCKETS.length; i++) {
              cum += s.buckets[i]!;
              out.push({ metricName: `${name}_bucket`, value: cum, labels: { ...labels(s), le: RPC_BUCKETS[i]! } });
            }
            out.push({ metricName: `${name}_bucket`, value: s.count, labels: { ...labels(s), le: '+Inf' } });
            out.push({ metricName: `${name}_sum`, value: s.sum, labels: labels(s) });
            out.push({ metricName: `${name}_count`, value: s.count, labels: labels(s) });
          }
          return out;
        },
      ),
    ];
  }
}
