// Transport-neutral JSON-RPC 2.0 envelope handling: parse, validate, dispatch, serialize.
// It knows nothing about Ethereum; methods live behind the Dispatcher. Envelope rules follow geth,
// because clients (viem, ethers, web3.py) were tested against geth's answers.
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  isDomainError,
  INVALID_REQUEST,
  PARSE_ERROR,
  RESPONSE_TOO_LARGE,
  toRpcError,
} from '../errors.ts';
import type { RpcErrorObject } from '../errors.ts';
import { errorText } from '../../log/logger.ts';

/** A live WebSocket connection, handed to methods that push notifications (eth_subscribe). */
export interface WsConnection {
  readonly id: number;
  /** Serializes and sends one message if the socket is still open; silently drops it otherwise. */
  send(message: object): void;
  /** Registers a cleanup hook; runs at once (asynchronously) if the connection is already closed. */
  onClose(fn: () => void): void;
  /** Bytes queued on the socket and not yet handed to the OS (lets pushers bound a slow reader). */
  bufferedAmount(): number;
}

/** What the transport knows about the caller of one request. */
export interface CallMeta {
  transport: 'http' | 'ws';
  authorized: boolean;
  connection?: WsConnection;
}

/**
 * A string result its producer built from characters JSON never escapes (0x-hex text: quantities, data, hashes), so
 * the envelope quotes it without checking. Checking costs more than the string: a fresh "0x"+digits string is a
 * rope that V8 must flatten before the first character can be read, a real share of a batch item's cost.
 */
export class PlainString {
  constructor(readonly text: string) {}
}

/**
 * Resolves a method call; throws (or rejects with) KestrelError subclasses that toRpcError maps to wire errors. A
 * method that has its answer at hand returns it directly: the envelope then stays synchronous, with no promise. A
 * PlainString result is answered as its text.
 */
export interface Dispatcher {
  call(method: string, params: unknown[], meta: CallMeta): unknown;
}

/** A reply (undefined: none is due), now or later. */
export type MaybeReply = string | undefined | Promise<string | undefined>;

/** Hands the reply to `done` at once when it is ready, else when it settles (a rejection goes to `failed`). */
export function whenReady(
  reply: MaybeReply,
  done: (r: string | undefined) => void,
  failed: (e: unknown) => void,
): void {
  if (reply instanceof Promise) reply.then(done, failed);
  else done(reply);
}

/** Transport limits shared by HTTP and WS. */
export interface RpcLimits {
  /** Largest request body / WS message in bytes (geth: 5 MiB). */
  maxBodyBytes: number;
  /** Largest batch (geth: 1000). */
  maxBatchItems: number;
  /** Largest serialized reply to one request or batch in bytes (geth: 25 MB for batches); absent or 0 = no cap. */
  maxResponseBytes?: number;
}

/** geth's defaults. */
export const DEFAULT_RPC_LIMITS: Readonly<RpcLimits> = Object.freeze({
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatchItems: 1000,
});

/** Where unexpected handler failures are reported; a parameter so tests and the node can redirect it. */
export type RpcLogger = (message: string) => void;

/** Default logger: stderr, one write per event so concurrent lines do not interleave. */
export const stderrLogger: RpcLogger = (message) => {
  process.stderr.write(message.endsWith('\n') ? message : message + '\n');
};

type Id = number | string | null;

const NO_RESPONSE = undefined;

/** Builds the serialized error envelope; the id has already been validated as JSON-safe. */
export function errorResponse(id: Id, error: RpcErrorObject): string {
  const body: { code: number; message: string; data?: unknown } = { code: error.code, message: error.message };
  if (error.data !== undefined) body.data = error.data;
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch {
    // Error data came from a domain error and should be wire-safe; if not, keep the code and drop the data.
    text = JSON.stringify({ code: error.code, message: error.message });
  }
  return `{"jsonrpc":"2.0","id":${idText(id)},"error":${text}}`;
}

/** The id as JSON; numbers (what clients send) without the serializer's call (validated as finite). */
function idText(id: Id): string {
  return typeof id === 'number' ? String(id) : JSON.stringify(id);
}

/** Longest string result checked character by character; past it JSON.stringify's native scan is cheaper. */
const PLAIN_SCAN_LIMIT = 130;

/** True when `s` serializes as itself in quotes: printable ASCII with no quote or backslash (hex results). */
function isPlainJsonString(s: string): boolean {
  if (s.length > PLAIN_SCAN_LIMIT) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/**
 * The reply to a failure of the server's own (a bug, never the request's fault), after logging `what` for the
 * operator: the client learns only that it was internal.
 */
export function internalErrorReply(id: Id, log: RpcLogger, what: string): string {
  log(what);
  return errorResponse(id, { code: INTERNAL_ERROR, message: 'internal error' });
}

/** The reply when a transport's handleBody rejects: it is written not to, so this keeps a bug there from becoming an unhandled rejection. */
export function handlerFailedReply(e: unknown, log: RpcLogger): string {
  return internalErrorReply(null, log, `rpc: http handler failed: ${errorText(e)}`);
}

function resultResponse(id: Id, result: unknown, log: RpcLogger, method: string): string {
  if (result instanceof PlainString) return `{"jsonrpc":"2.0","id":${idText(id)},"result":"${result.text}"}`;
  // Most results are short hex strings: quoted as they are, without the generic serializer's scan.
  if (typeof result === 'string' && isPlainJsonString(result)) {
    return `{"jsonrpc":"2.0","id":${idText(id)},"result":"${result}"}`;
  }
  let text: string | undefined;
  try {
    // undefined means "no value" to the handler; JSON-RPC requires the member, so it becomes null.
    text = JSON.stringify(result === undefined ? null : result);
  } catch (e) {
    return internalErrorReply(id, log, `rpc: cannot serialize result of ${method}: ${errorText(e)}`);
  }
  if (text === undefined) {
    // functions and symbols stringify to undefined, which would drop the result member entirely.
    return internalErrorReply(id, log, `rpc: result of ${method} is not JSON-serializable`);
  }
  return `{"jsonrpc":"2.0","id":${idText(id)},"result":${text}}`;
}

/** geth's answer for a reply over the response cap (the work was done, the bytes are not sent). */
function tooLarge(id: Id): string {
  return errorResponse(id, { code: RESPONSE_TOO_LARGE, message: 'response too large' });
}

function isValidId(id: unknown): id is Id {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Handles one (non-batch) message: the serialized response, or undefined for a notification; sync when the method is. */
function handleMessage(msg: unknown, dispatcher: Dispatcher, meta: CallMeta, log: RpcLogger): MaybeReply {
  if (!isPlainObject(msg)) return errorResponse(null, { code: INVALID_REQUEST, message: 'invalid request' });
  const hasId = Object.hasOwn(msg, 'id');
  const id = msg.id;
  const idOk = !hasId || isValidId(id);
  const echoId: Id = hasId && isValidId(id) ? id : null;
  const method = msg.method;
  if (msg.jsonrpc !== '2.0' || typeof method !== 'string' || method === '' || !idOk) {
    // Like geth, a malformed message is answered even without an id: the sender cannot have meant a
    // notification it did not know how to write.
    return errorResponse(echoId, { code: INVALID_REQUEST, message: 'invalid request' });
  }
  const notification = !hasId;
  let params: unknown[];
  // geth accepts "params": null because its own client once sent it.
  if (msg.params === undefined || msg.params === null) params = [];
  else if (Array.isArray(msg.params)) params = msg.params;
  else return notification ? NO_RESPONSE : errorResponse(echoId, { code: INVALID_PARAMS, message: 'non-array args' });

  let result: unknown;
  try {
    result = dispatcher.call(method, params, meta);
  } catch (e) {
    return failure(e, method, notification, echoId, log);
  }
  if (result instanceof Promise) {
    return result.then(
      (r: unknown) => (notification ? NO_RESPONSE : resultResponse(echoId, r, log, method)),
      (e: unknown) => failure(e, method, notification, echoId, log),
    );
  }
  return notification ? NO_RESPONSE : resultResponse(echoId, result, log, method);
}

/** The reply to a method that threw or rejected; a non-domain error is also logged as a crash. */
function failure(e: unknown, method: string, notification: boolean, id: Id, log: RpcLogger): string | undefined {
  if (!isDomainError(e)) log(`rpc: method handler crashed: ${method}: ${errorText(e)}`);
  return notification ? NO_RESPONSE : errorResponse(id, toRpcError(e));
}

function idOf(item: unknown): Id {
  return isPlainObject(item) && isValidId(item.id) ? item.id : null;
}

/** A batch's replies joined into one array, with geth's response cap: once reached, later items are "too large". */
function joinBatch(parsed: unknown[], replies: Array<string | undefined>, cap: number): string | undefined {
  let out = '';
  let count = 0;
  // String length bounds the UTF-8 size (3 bytes per UTF-16 unit at most): exact sizes are only needed near the cap.
  let upper = 2;
  let exact = -1;
  let over = false;
  for (let i = 0; i < replies.length; i++) {
    let r = replies[i];
    if (r === undefined) continue;
    if (over) {
      r = tooLarge(idOf(parsed[i]));
    } else if (exact < 0 && (upper += r.length * 3 + 1) <= cap) {
      // far from the cap
    } else {
      // The exact size of what is already in: brackets, items, and one separator per item.
      if (exact < 0) exact = 2 + (count > 0 ? Buffer.byteLength(out) + 1 : 0);
      const size = Buffer.byteLength(r) + 1;
      if (exact + size > cap) {
        over = true;
        r = tooLarge(idOf(parsed[i]));
      } else {
        exact += size;
      }
    }
    out = count === 0 ? r : `${out},${r}`;
    count++;
  }
  return count === 0 ? NO_RESPONSE : `[${out}]`;
}

/**
 * Parses a request body (single or batch), runs it and returns the serialized reply, or undefined if none is due.
 * The body is parsed once and the reply serialized once; when every method answers synchronously, so does this.
 */
export function handleBody(
  body: string | Buffer,
  dispatcher: Dispatcher,
  meta: CallMeta,
  limits: RpcLimits,
  log: RpcLogger = stderrLogger,
): MaybeReply {
  // Transports enforce this before buffering; repeated here so a new transport cannot forget it.
  const size =
    typeof body === 'string'
      ? body.length > limits.maxBodyBytes / 3
        ? Buffer.byteLength(body)
        : body.length
      : body.length;
  if (size > limits.maxBodyBytes) {
    return errorResponse(null, {
      code: INVALID_REQUEST,
      message: `content length too large (${size}>${limits.maxBodyBytes})`,
    });
  }
  // Invalid UTF-8 decodes to U+FFFD; the JSON parser then decides.
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return errorResponse(null, { code: PARSE_ERROR, message: 'parse error' });
  }
  const cap = limits.maxResponseBytes !== undefined && limits.maxResponseBytes > 0 ? limits.maxResponseBytes : Infinity;
  if (!Array.isArray(parsed)) {
    const capped = (reply: string | undefined): string | undefined =>
      // String length bounds the UTF-8 size from below, so the exact count is only needed near the cap.
      reply !== undefined && reply.length * 3 > cap && Buffer.byteLength(reply) > cap ? tooLarge(idOf(parsed)) : reply;
    const unexpected = (e: unknown): string =>
      internalErrorReply(null, log, `rpc: unexpected transport failure: ${errorText(e)}`);
    try {
      const reply = handleMessage(parsed, dispatcher, meta, log);
      return reply instanceof Promise ? reply.then(capped, unexpected) : capped(reply);
    } catch (e) {
      return unexpected(e);
    }
  }
  if (parsed.length === 0) return errorResponse(null, { code: INVALID_REQUEST, message: 'empty batch' });
  if (parsed.length > limits.maxBatchItems) {
    return errorResponse(null, { code: INVALID_REQUEST, message: 'batch too large' });
  }
  const replies: Array<string | undefined> = new Array(parsed.length);
  let pending: Array<Promise<void>> | undefined;
  // Nothing is allocated per item beyond its reply unless the item answers later or fails.
  const unexpected = (i: number, e: unknown): void => {
    replies[i] = internalErrorReply(idOf(parsed[i]), log, `rpc: unexpected transport failure: ${errorText(e)}`);
  };
  for (let i = 0; i < parsed.length; i++) {
    try {
      const r = handleMessage(parsed[i], dispatcher, meta, log);
      if (r instanceof Promise) {
        (pending ??= []).push(
          r.then(
            (v) => void (replies[i] = v),
            (e: unknown) => unexpected(i, e),
          ),
        );
      } else replies[i] = r;
    } catch (e) {
      unexpected(i, e);
    }
  }
  if (pending === undefined) return joinBatch(parsed, replies, cap);
  return Promise.all(pending).then(() => joinBatch(parsed, replies, cap));
}
