// Bearer-token and Origin checks shared by the HTTP and WS transports.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** True only when the Authorization header carries `Bearer <token>` equal to the configured token. */
export function isAuthorized(header: string | string[] | undefined, token: string | undefined): boolean {
  // An empty configured token would make "Bearer " match; treat it as "no private access configured".
  // No header (uWS reports it as '') is every public request: answered without running the regex.
  if (token === undefined || token === '' || typeof header !== 'string' || header === '') return false;
  // The scheme is case-insensitive (RFC 7235); the credential is compared byte for byte.
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!m) return false;
  // Comparing SHA-256 digests keeps timingSafeEqual on equal lengths, so neither the bytes nor the length of the
  // configured token shows in the time a wrong guess takes.
  return timingSafeEqual(sha256(m[1]!), sha256(token));
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** The value for Access-Control-Allow-Origin, or undefined when the origin is not allowed (or CORS is off). */
export function corsAllowOrigin(origin: string | undefined, allowed: readonly string[]): string | undefined {
  if (allowed.length === 0 || origin === undefined) return undefined;
  if (allowed.includes('*')) return '*';
  const o = origin.toLowerCase();
  return allowed.some((a) => a.toLowerCase() === o) ? origin : undefined;
}

/** Whether a WebSocket handshake from this Origin may proceed (geth's rules). */
export function wsOriginAllowed(origin: string | undefined, allowed: readonly string[] | undefined): boolean {
  // Browsers always send Origin; its absence means a non-browser client, which CSRF-style checks cannot concern.
  if (origin === undefined) return true;
  if (allowed && allowed.length > 0) {
    if (allowed.includes('*')) return true;
    const o = origin.toLowerCase();
    return allowed.some((a) => a.toLowerCase() === o);
  }
  // Nothing configured: only pages served from this machine, so a random website cannot drive a local node.
  try {
    const host = new URL(origin).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
  } catch {
    return false;
  }
}

/** Whether an HTTP Host header names an allowed virtual host (geth's --http.vhosts rules). */
export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return true;
  // HTTP/1.0 clients may omit Host; geth lets them through, as no browser sends such a request.
  if (header === undefined || header === '') return true;
  const m = /^\[([^\]]*)\](?::\d*)?$/.exec(header) ?? /^([^:]*)(?::\d*)?$/.exec(header);
  if (!m) return false;
  const host = m[1]!.toLowerCase();
  // A literal address cannot be rebound by DNS, so geth always accepts one.
  if (isIP(host) !== 0) return true;
  return allowed.some((a) => a.toLowerCase() === host);
}
