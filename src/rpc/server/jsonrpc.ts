// Transport-neutral JSON-RPC 2.0 envelope handling: parse, validate, dispatch, serialize.
// It knows nothing about Ethereum; methods live behind the Dispatcher. Envelope rules follow geth,
// because clients (viem, ethers, web3.py) were tested against geth's answers.
import { KestrelError } from '../../errors/index.ts';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  PARSE_ERROR,
  RESPONSE_TOO_LARGE,
  toRpcError,
} from '../errors.ts';
import type { RpcErrorObject } from '../errors.ts';

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

/** Resolves a method call; throws KestrelError subclasses that toRpcError maps to wire errors. */
export interface Dispatcher {
  call(method: string, params: unknown[], meta: CallMeta): Promise<unknown>;
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
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${text}}`;
}

function resultResponse(id: Id, result: unknown, log: RpcLogger, method: string): string {
  let text: string | undefined;
  try {
    // undefined means "no value" to the handler; JSON-RPC requires the member, so it becomes null.
    text = JSON.stringify(result === undefined ? null : result);
  } catch (e) {
    log(`rpc: cannot serialize result of ${method}: ${describe(e)}`);
    return errorResponse(id, { code: INTERNAL_ERROR, message: 'internal error' });
  }
  if (text === undefined) {
    // functions and symbols stringify to undefined, which would drop the result member entirely.
    log(`rpc: result of ${method} is not JSON-serializable`);
    return errorResponse(id, { code: INTERNAL_ERROR, message: 'internal error' });
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${text}}`;
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  try {
    return String(e);
  } catch {
    return 'unprintable value';
  }
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

/** Handles one (non-batch) message; resolves to the serialized response or undefined for a notification. */
async function handleMessage(
  msg: unknown,
  dispatcher: Dispatcher,
  meta: CallMeta,
  log: RpcLogger,
): Promise<string | undefined> {
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
    result = await dispatcher.call(method, params, meta);
  } catch (e) {
    if (!(e instanceof KestrelError)) log(`rpc: method handler crashed: ${method}: ${describe(e)}`);
    return notification ? NO_RESPONSE : errorResponse(echoId, toRpcError(e));
  }
  return notification ? NO_RESPONSE : resultResponse(echoId, result, log, method);
}

/** Parses a request body (single or batch), runs it and returns the serialized reply, or undefined if none is due. */
export async function handleBody(
  body: string | Buffer,
  dispatcher: Dispatcher,
  meta: CallMeta,
  limits: RpcLimits,
  log: RpcLogger = stderrLogger,
): Promise<string | undefined> {
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size > limits.maxBodyBytes) {
    // Transports enforce this before buffering; repeated here so a new transport cannot forget it.
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
    try {
      const reply = await handleMessage(parsed, dispatcher, meta, log);
      // String length bounds the UTF-8 size from below, so the exact count is only needed near the cap.
      if (reply !== undefined && reply.length * 3 > cap && Buffer.byteLength(reply) > cap) {
        return tooLarge(isPlainObject(parsed) && isValidId(parsed.id) ? parsed.id : null);
      }
      return reply;
    } catch (e) {
      log(`rpc: unexpected transport failure: ${describe(e)}`);
      return errorResponse(null, { code: INTERNAL_ERROR, message: 'internal error' });
    }
  }
  if (parsed.length === 0) return errorResponse(null, { code: INVALID_REQUEST, message: 'empty batch' });
  if (parsed.length > limits.maxBatchItems) {
    return errorResponse(null, { code: INVALID_REQUEST, message: 'batch too large' });
  }
  const replies = await Promise.all(
    parsed.map(async (item) => {
      try {
        return await handleMessage(item, dispatcher, meta, log);
      } catch (e) {
        log(`rpc: unexpected transport failure: ${describe(e)}`);
        const id = isPlainObject(item) && isValidId(item.id) ? item.id : null;
        return errorResponse(id, { code: INTERNAL_ERROR, message: 'internal error' });
      }
    }),
  );
  // Like geth, once the batch's reply reaches the cap every further item is answered "response too large".
  let total = 2;
  let over = false;
  const sent: string[] = [];
  replies.forEach((r, i) => {
    if (r === undefined) return;
    const size = cap === Infinity ? 0 : Buffer.byteLength(r) + 1;
    if (over || total + size > cap) {
      over = true;
      const item = parsed[i];
      r = tooLarge(isPlainObject(item) && isValidId(item.id) ? item.id : null);
    } else {
      total += size;
    }
    sent.push(r);
  });
  return sent.length === 0 ? NO_RESPONSE : `[${sent.join(',')}]`;
}
