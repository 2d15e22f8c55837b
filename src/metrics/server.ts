// The metrics endpoint: GET /metrics (Prometheus' convention) and /debug/metrics/prometheus (geth's and
// Ethermint's path) answer the page in the Prometheus text format; anything else is 404.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorText } from '../log/logger.ts';

/** A listening metrics server. */
export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

const PATHS = new Set(['/metrics', '/debug/metrics/prometheus']);

/** Starts the server on host:port; `page` renders the metrics at each scrape. */
export async function startMetricsServer(
  host: string,
  port: number,
  page: () => Promise<{ contentType: string; body: string }>,
  log: (line: string) => void,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!PATHS.has(path) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    page().then(
      (p) => res.writeHead(200, { 'content-type': p.contentType }).end(req.method === 'HEAD' ? undefined : p.body),
      (e: unknown) => {
        log(`metrics: rendering the page failed: ${errorText(e)}`);
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(new Error(`metrics server: cannot listen on ${host}:${port} (--metrics.address): ${e.message}`)),
    );
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
