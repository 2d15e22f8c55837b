// JSON-RPC over HTTP on node:http, the fallback back end (uwsHttp.ts is the native one): POST only, bounded bodies,
// optional CORS and bearer auth.
import http from 'node:http';
import type { Socket } from 'node:net';
import { hostAllowed, isAuthorized } from './auth.ts';
import { ConnectionCap } from './connections.ts';
import { handleBody, handlerFailedReply, stderrLogger, whenReady } from './jsonrpc.ts';
import type { CallMeta } from './jsonrpc.ts';
import { closeServer, listen } from './listen.ts';
import {
  allowHeader,
  contentTypeOk,
  corsHeaders,
  LINGER_MS,
  preflightHeaders,
  refusalBody,
  tooLargeMessage,
} from './rules.ts';
import type { HttpServerOptions, RunningServer } from './options.ts';
import { errorText } from '../../log/logger.ts';

/** Options of the HTTP transport (declared with the transport interface). */
export type { HttpServerOptions } from './options.ts';

/** A running HTTP transport on node:http. */
export interface RunningHttpServer extends RunningServer {
  server: http.Server;
}

function sendJson(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

function sendRejection(
  res: http.ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, refusalBody(message), headers);
}

/**
 * Answers 413 and closes the connection without buffering the body. The close lingers (as Go's server does): after
 * the answer, our side is shut and the rest of the upload is read and discarded until the client stops sending or
 * LINGER_MS passes. Destroying a socket whose upload is still unread makes the kernel send a reset, and that reset
 * can destroy the 413 before the client reads it (clients then see ECONNRESET and no answer at all).
 */
function rejectTooLarge(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  size: number,
  max: number,
  headers: Record<string, string>,
): void {
  const socket = req.socket;
  // Node's server ends a `Connection: close` response's socket with destroySoon(), which destroys it as soon as the
  // answer is flushed, unread upload or not.
  socket.destroySoon = () => lingeringClose(socket);
  req.resume();
  sendRejection(res, 413, tooLargeMessage(size, max), { ...headers, Connection: 'close' });
}

function lingeringClose(socket: Socket): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.end();
  socket.resume();
}

/** Starts the HTTP JSON-RPC server; resolves once it listens (port 0 picks a free port). */
export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const { dispatcher, limits, corsOrigins, authToken, busyPoll } = opts;
  const log = opts.log ?? stderrLogger;
  const requestTimeout = opts.requestTimeoutMs ?? 30_000;
  const allowedHosts = opts.allowedHosts ?? ['*'];

  const cap = new ConnectionCap(opts.maxOpenConnections ?? 0);
  const server = http.createServer(
    {
      requestTimeout,
      // Node requires headersTimeout <= requestTimeout.
      headersTimeout: Math.min(requestTimeout, 10_000),
      // Node only sweeps for expired requests on this interval; keep it proportionate so the timeout means something.
      connectionsCheckingInterval: Math.max(50, Math.min(requestTimeout, 30_000) / 4),
      keepAlive: true,
      // geth's idle timeout. Node's 5 s default closes idle keep-alive sockets so often that a client reusing one
      // races the server's FIN and sees "socket hang up" (the load test saw 7 in 43k requests).
      keepAliveTimeout: 120_000,
    },
    (req, res) => {
      req.on('error', () => req.socket.destroy());
      res.on('error', () => req.socket.destroy());
      if (cap.isOver(req.socket)) {
        res.once('finish', () => req.socket.destroy());
        sendRejection(res, 503, cap.message(), { Connection: 'close', 'Retry-After': '1' });
        return;
      }
      if (!hostAllowed(req.headers.host, allowedHosts)) {
        // geth's answer to a Host outside --http.vhosts (a DNS-rebinding page reaching a local node).
        sendRejection(res, 403, 'invalid host specified');
        return;
      }

      const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
      const cors = corsHeaders(origin, corsOrigins);

      if (req.method === 'OPTIONS' && corsOrigins.length > 0) {
        const asked = req.headers['access-control-request-headers'];
        res.writeHead(204, preflightHeaders(cors, typeof asked === 'string' ? asked : undefined));
        res.end();
        return;
      }
      if (req.method !== 'POST') {
        sendRejection(res, 405, 'method not allowed', { ...cors, Allow: allowHeader(corsOrigins) });
        return;
      }
      const declared = req.headers['content-length'];
      if (declared !== undefined) {
        const n = Number(declared);
        if (Number.isFinite(n) && n > limits.maxBodyBytes) {
          rejectTooLarge(req, res, n, limits.maxBodyBytes, cors);
          return;
        }
      }
      if (!contentTypeOk(req.headers['content-type'])) {
        sendRejection(res, 415, 'invalid content type, only application/json is supported', cors);
        return;
      }

      const chunks: Buffer[] = [];
      let received = 0;
      let aborted = false;
      req.on('data', (chunk: Buffer) => {
        if (aborted) return;
        received += chunk.length;
        // Chunked uploads carry no Content-Length, so the limit must also hold while streaming.
        if (received > limits.maxBodyBytes) {
          aborted = true;
          chunks.length = 0;
          rejectTooLarge(req, res, received, limits.maxBodyBytes, cors);
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (aborted) return;
        const meta: CallMeta = { transport: 'http', authorized: isAuthorized(req.headers.authorization, authToken) };
        whenReady(
          handleBody(Buffer.concat(chunks, received), dispatcher, meta, limits, log),
          (reply) => {
            sendJson(res, 200, reply ?? '', cors);
            busyPoll?.touch();
          },
          (e: unknown) => sendJson(res, 500, handlerFailedReply(e, log), cors),
        );
      });
    },
  );

  cap.track(server);
  const port = await listen(server, opts.port, opts.host);
  server.on('error', (e) => log(`rpc: http server error: ${errorText(e)}`));
  return {
    transport: 'node',
    server,
    port,
    close: () => closeServer(server),
  };
}
