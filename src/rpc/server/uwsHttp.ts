// JSON-RPC over HTTP on uWebSockets.js: the same rules as the node:http back end (http.ts), on a native server.
// uWS hands the request's headers to one synchronous callback and its body to onData; the reply must be written
// inside cork() once the handler has returned, and never after onAborted.
import { hostAllowed, isAuthorized } from './auth.ts';
import { handleBody, handlerFailedReply, stderrLogger } from './jsonrpc.ts';
import type { CallMeta, RpcLogger } from './jsonrpc.ts';
import {
  allowHeader,
  contentTypeOk,
  corsHeaders,
  LINGER_MS,
  preflightHeaders,
  refusalBody,
  STATUS_LINE,
  TIMEOUT_MESSAGE,
  tooLargeMessage,
} from './rules.ts';
import type { HttpServerOptions, RunningServer } from './options.ts';
import type { HttpResponse, UwsModule } from './uws.ts';
import { UwsListener } from './uwsListen.ts';
import { BoundedMemo } from '../../primitives/boundedMemo.ts';
import { errorMessage } from '../../errors/index.ts';

/** One request whose reply is still due. */
interface Exchange {
  readonly res: HttpResponse;
  readonly cors: Record<string, string>;
  readonly startedAt: number;
  /** The connection went away: res must not be touched. */
  aborted: boolean;
  /** A reply (or refusal) has been written. */
  answered: boolean;
  /**
   * When a chunked upload went over the body limit (performance.now()); its 413 waits for the rest of the upload,
   * read and thrown away, for at most LINGER_MS.
   */
  overLimitAt?: number;
  /** The bytes received when it went over (what the 413 reports, as node:http's back end does). */
  overLimitSize?: number;
  /** Its 200 reply while ReplyBurst holds it for the end of the loop's turn. */
  held: string | undefined;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The Keep-Alive hint on every reply that keeps its connection. uWS closes an idle keep-alive connection after its
 * fixed 10 s (HTTP_IDLE_TIMEOUT_S; its timer ticks every 4 s, so as early as 8 s), and a pooled client socket reused
 * just as that FIN arrives fails with "socket hang up". undici, and Node's agent when it has an idle timeout (its
 * global agent does: 5 s), retire an idle socket a second before the hinted timeout; node:http sends its own.
 */
const KEEP_ALIVE_HINT = 'timeout=5';

/**
 * The header names and values of every request and reply, encoded once. uWS takes a JS string by copying it into a
 * malloc'ed UTF-8 buffer on each call, and an ArrayBuffer as it is, so the copy leaves every request's path.
 */
function latin1(text: string): ArrayBuffer {
  return Uint8Array.from(Buffer.from(text, 'latin1')).buffer;
}
const H_KEEP_ALIVE = latin1('Keep-Alive');
const H_KEEP_ALIVE_HINT = latin1(KEEP_ALIVE_HINT);
const H_CONTENT_TYPE = latin1('Content-Type');
const H_JSON = latin1('application/json');
const H_CONTENT_LENGTH_KEY = latin1('content-length');
const H_CONTENT_TYPE_KEY = latin1('content-type');

/** Writes a whole reply; `close` asks uWS to end the connection after it. */
function answer(x: Exchange, status: number, body: string, headers: Record<string, string>, close = false): void {
  if (x.aborted || x.answered) return;
  x.answered = true;
  const { res } = x;
  res.cork(() => writeReply(res, status, body, headers, close));
}

function writeReply(
  res: HttpResponse,
  status: number,
  body: string,
  headers: Record<string, string>,
  close: boolean,
): void {
  // uWS writes "200 OK" itself when no status was written.
  if (status !== 200) res.writeStatus(STATUS_LINE[status]!);
  if (headers !== NO_HEADERS) for (const k in headers) res.writeHeader(k, headers[k]!);
  if (!close && headers.Connection === undefined) res.writeHeader(H_KEEP_ALIVE, H_KEEP_ALIVE_HINT);
  res.writeHeader(H_CONTENT_TYPE, H_JSON);
  res.end(body, close);
}

/**
 * Replies answered synchronously, written together after the loop's poll phase has run the callbacks of every
 * socket it found ready (all but the first of the turn). A reply written at once wakes the client's sleeping thread
 * with its own send (a wakeup across CPUs, which on a VM can cost more than building the reply); written in one
 * burst, most sends find the client already awake. The first reply of a turn is written at once, so a lone client
 * waits for nothing (the figures of each variant: bench/results/transport-and-reads.md).
 */
class ReplyBurst {
  private readonly exchanges: Exchange[] = [];
  /** The index writeOne writes (one closure for every cork, instead of one made per reply). */
  private at = 0;
  /** A reply has been written in this turn of the loop and the flush is scheduled. */
  private turn = false;

  constructor(private readonly log: RpcLogger) {}

  /**
   * Takes x's 200 reply unless it is the first of this turn of the loop (false: the caller writes it now). The first
   * goes at once because most turns of a client waiting for each answer read one connection: holding its reply
   * would only add the rest of the turn to the wait.
   */
  defer(x: Exchange, body: string): boolean {
    if (!this.turn) {
      this.turn = true;
      setImmediate(this.flush);
      return false;
    }
    x.held = body;
    this.exchanges.push(x);
    return true;
  }

  private readonly writeOne = (): void => {
    const x = this.exchanges[this.at]!;
    writeReply(x.res, 200, x.held!, x.cors, false);
  };

  private readonly flush = (): void => {
    const list = this.exchanges;
    try {
      for (this.at = 0; this.at < list.length; this.at++) {
        // A connection that went away since (onAborted) must not be written to.
        if (list[this.at]!.aborted) continue;
        try {
          list[this.at]!.res.cork(this.writeOne);
        } catch (e) {
          // One failed write must not cost the others theirs (nor, thrown from an immediate, the process).
          this.log(`rpc: http reply not written: ${errorMessage(e)}`);
        }
      }
    } finally {
      list.length = 0;
      this.turn = false;
    }
  };
}

/** The call metadata of HTTP requests: one object per authorization, shared (methods only read it). */
const OPEN_META: CallMeta = { transport: 'http', authorized: false };
const AUTHORIZED_META: CallMeta = { transport: 'http', authorized: true };
/** Distinct Host headers whose verdict is remembered (a client sends the same one on every request). */
const HOST_VERDICTS_MAX = 64;

/**
 * Headers of a 413 whose close lingers. Ending the reply with uWS's close flag resets a connection whose upload is
 * still arriving, and the reset can destroy the 413 before the client reads it. Without the flag uWS keeps reading
 * (and discarding) the declared body; `Connection: close` tells the client to hang up, and uWS closes on its FIN or
 * after its 10 s idle timeout.
 */
function lingering(headers: Record<string, string>): Record<string, string> {
  return { ...headers, Connection: 'close' };
}

/**
 * Headers of a refusal sent before the body was read (403, 405, 415). The connection is closed after it: uWS would
 * otherwise keep reading a slowly dripped body for the finished request, with no timeout left to end it. A body
 * that arrived with the headers is already read, so the close is clean.
 */
const CLOSING: Record<string, string> = Object.freeze({ Connection: 'close' }) as Record<string, string>;

/** A refusal written from inside the request callback (uWS has corked the socket already). */
function refuse(
  res: HttpResponse,
  status: number,
  message: string,
  headers: Record<string, string>,
  close = false,
): void {
  res.writeStatus(STATUS_LINE[status]!);
  for (const k in headers) res.writeHeader(k, headers[k]!);
  res.writeHeader('Content-Type', 'application/json');
  res.end(refusalBody(message), close);
}

/** Starts the HTTP JSON-RPC server on uWebSockets.js; resolves once it listens (port 0 picks a free port). */
export async function startUwsHttpServer(uws: UwsModule, opts: HttpServerOptions): Promise<RunningServer> {
  const { dispatcher, limits, corsOrigins, authToken, busyPoll } = opts;
  const log = opts.log ?? stderrLogger;
  const burst = opts.coalesceWrites === true ? new ReplyBurst(log) : undefined;
  const requestTimeout = opts.requestTimeoutMs ?? 30_000;
  const allowedHosts = opts.allowedHosts ?? ['*'];
  const anyHost = allowedHosts.includes('*');
  const maxBody = limits.maxBodyBytes;
  // Requests whose body is still arriving, swept for the request timeout (one timer for all, as node:http does).
  const receiving = new Set<Exchange>();

  const app = uws.App();
  const listener = new UwsListener(uws, app, opts.host, opts.maxOpenConnections ?? 0, log);
  const hostVerdicts = new BoundedMemo<string, boolean>(HOST_VERDICTS_MAX);
  const hostOk = (host: string): boolean =>
    hostVerdicts.get(host) ?? hostVerdicts.set(host, hostAllowed(host === '' ? undefined : host, allowedHosts));
  app.any('/*', (res, req) => {
    // geth's answer to a Host outside --http.vhosts (a DNS-rebinding page reaching a local node).
    if (!anyHost && !hostOk(req.getHeader('host'))) {
      refuse(res, 403, 'invalid host specified', CLOSING, true);
      return;
    }
    let cors = NO_HEADERS;
    if (corsOrigins.length > 0) {
      const origin = req.getHeader('origin');
      if (origin !== '') cors = corsHeaders(origin, corsOrigins);
    }
    const method = req.getMethod();
    if (method !== 'post') {
      if (method === 'options' && corsOrigins.length > 0) {
        res.writeStatus(STATUS_LINE[204]!);
        const headers = preflightHeaders(cors, req.getHeader('access-control-request-headers'));
        for (const k in headers) res.writeHeader(k, headers[k]!);
        res.writeHeader('Keep-Alive', KEEP_ALIVE_HINT);
        res.endWithoutBody();
        return;
      }
      refuse(res, 405, 'method not allowed', { ...cors, Allow: allowHeader(corsOrigins), Connection: 'close' }, true);
      return;
    }
    const declared = req.getHeader(H_CONTENT_LENGTH_KEY);
    if (declared !== '') {
      const n = Number(declared);
      if (Number.isFinite(n) && n > maxBody) {
        refuse(res, 413, tooLargeMessage(n, maxBody), lingering(cors));
        return;
      }
    }
    const type = req.getHeader(H_CONTENT_TYPE_KEY);
    if (type !== 'application/json' && !contentTypeOk(type)) {
      refuse(
        res,
        415,
        'invalid content type, only application/json is supported',
        { ...cors, Connection: 'close' },
        true,
      );
      return;
    }
    const meta =
      authToken !== undefined && isAuthorized(req.getHeader('authorization'), authToken) ? AUTHORIZED_META : OPEN_META;
    const x: Exchange = {
      res,
      cors,
      startedAt: performance.now(),
      aborted: false,
      answered: false,
      held: undefined,
    };
    res.onAborted(() => {
      x.aborted = true;
      receiving.delete(x);
    });
    receiving.add(x);
    let chunks: Buffer[] | undefined;
    let received = 0;
    res.onData((chunk, isLast) => {
      if (x.answered) return;
      received += chunk.byteLength;
      // Chunked uploads carry no Content-Length, so the limit must also hold while streaming. The 413 goes out once
      // the upload has ended: uWS ends a chunked request whose reply is already written by resetting the
      // connection as the rest arrives, and the reset destroys the 413 before the client reads it (135 of 200
      // 6 MiB chunked uploads got no answer). The rest is read and dropped, for at most LINGER_MS (the sweep).
      if (received > maxBody) {
        chunks = undefined;
        if (x.overLimitAt === undefined) {
          x.overLimitAt = performance.now();
          x.overLimitSize = received;
        }
        if (!isLast) return;
        receiving.delete(x);
        answer(x, 413, refusalBody(tooLargeMessage(x.overLimitSize!, maxBody)), lingering(cors), true);
        return;
      }
      if (!isLast) {
        // The chunk's memory is reused once this callback returns.
        (chunks ??= []).push(Buffer.from(chunk.slice(0)));
        return;
      }
      receiving.delete(x);
      // Decoded before returning, while uWS still owns the chunk; invalid UTF-8 becomes U+FFFD and a parse error.
      const text =
        chunks === undefined
          ? Buffer.from(chunk).toString('utf8')
          : Buffer.concat([...chunks, Buffer.from(chunk)]).toString('utf8');
      chunks = undefined;
      const reply = handleBody(text, dispatcher, meta, limits, log);
      if (!(reply instanceof Promise)) {
        // Answered at once, still inside uWS's data callback (the socket is corked there); with coalesceWrites,
        // written with the other replies of this turn of the loop (ReplyBurst).
        if (!x.aborted) {
          x.answered = true;
          if (burst === undefined || !burst.defer(x, reply ?? '')) writeReply(res, 200, reply ?? '', cors, false);
        }
        busyPoll?.touch();
        return;
      }
      reply.then(
        (r) => {
          answer(x, 200, r ?? '', cors);
          busyPoll?.touch();
        },
        (e: unknown) => answer(x, 500, handlerFailedReply(e, log), cors),
      );
    });
  });

  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const x of receiving) {
        if (x.overLimitAt !== undefined) {
          if (now - x.overLimitAt < LINGER_MS) continue;
          // Still uploading past the linger: refuse and drop the connection (the client may then miss the 413).
          receiving.delete(x);
          answer(x, 413, refusalBody(tooLargeMessage(x.overLimitSize!, maxBody)), x.cors, true);
          continue;
        }
        if (now - x.startedAt < requestTimeout) continue;
        receiving.delete(x);
        // A slow-drip (slowloris) or stalled upload: answer and drop the connection, as node:http's requestTimeout does.
        answer(x, 408, refusalBody(TIMEOUT_MESSAGE), x.cors, true);
      }
    },
    Math.max(50, Math.min(requestTimeout, 30_000, 4 * LINGER_MS) / 4),
  );
  sweep.unref();

  return listener.serve(opts.port, sweep);
}
