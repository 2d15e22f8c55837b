// HTTP request rules shared by both back ends (node:http and uWebSockets.js): content types, CORS headers and the
// JSON bodies of refusals, so the two answer byte for byte alike.
import { INVALID_REQUEST } from '../errors.ts';
import { corsAllowOrigin } from './auth.ts';
import { errorResponse } from './jsonrpc.ts';

// geth accepts these three; some older tooling still sends the -rpc variants.
const ACCEPTED_CONTENT_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);

/** Whether a Content-Type header names JSON (parameters such as charset are ignored). */
export function contentTypeOk(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  const media = header.split(';', 1)[0]!.trim().toLowerCase();
  return ACCEPTED_CONTENT_TYPES.has(media);
}

/** The JSON-RPC error body of a transport-level refusal (id null, code -32600). */
export function refusalBody(message: string): string {
  return errorResponse(null, { code: INVALID_REQUEST, message });
}

/** geth's wording for a body over the cap. */
export function tooLargeMessage(size: number, max: number): string {
  return `content length too large (${size}>${max})`;
}

/** The refusal of a client that sent a partial request for longer than the request timeout. */
export const TIMEOUT_MESSAGE = 'request timed out';

/** CORS response headers for a request from `origin` ({} when CORS is off or the origin is not allowed). */
export function corsHeaders(origin: string | undefined, corsOrigins: readonly string[]): Record<string, string> {
  const allowOrigin = corsAllowOrigin(origin, corsOrigins);
  if (allowOrigin === undefined) return {};
  return allowOrigin === '*'
    ? { 'Access-Control-Allow-Origin': '*' }
    : { 'Access-Control-Allow-Origin': allowOrigin, Vary: 'Origin' };
}

/** Headers of a preflight answer (204), added to `cors` when the origin is allowed. */
export function preflightHeaders(
  cors: Record<string, string>,
  askedHeaders: string | undefined,
): Record<string, string> {
  if (cors['Access-Control-Allow-Origin'] === undefined) return cors;
  return {
    ...cors,
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers':
      askedHeaders !== undefined && askedHeaders !== '' ? askedHeaders : 'Content-Type, Authorization',
    'Access-Control-Max-Age': '600',
  };
}

/** The Allow header of a 405. */
export function allowHeader(corsOrigins: readonly string[]): string {
  return corsOrigins.length > 0 ? 'POST, OPTIONS' : 'POST';
}

/** How long the rest of a rejected upload is still read (and thrown away) after the 413 went out. */
export const LINGER_MS = 2_000;

/** Status lines for the codes the servers send (uWebSockets.js writes the line as given). */
export const STATUS_LINE: Readonly<Record<number, string>> = Object.freeze({
  101: '101 Switching Protocols',
  200: '200 OK',
  204: '204 No Content',
  403: '403 Forbidden',
  405: '405 Method Not Allowed',
  408: '408 Request Timeout',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  426: '426 Upgrade Required',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
});
