// Decoding of CometBFT RPC arguments, once, at the edge. The same method takes its arguments three ways, as
// CometBFT's server accepts them: JSON-RPC POST with named params ({"height":"5"}) or positional params
// (["5"]), and URI GET (?height=5&path="/a"&data=0x0a0b). 64-bit integers arrive as strings or numbers; `tx`
// is base64 in JSON and 0x-hex (or a quoted string) in a URI; abci_query `data` is hex in both.
import { InvalidParamsError } from '../errors/index.ts';

/** How one argument is decoded. */
export type ArgKind = 'int' | 'string' | 'bool' | 'hexBytes' | 'base64Bytes';

/** A method's arguments in positional order. */
export type ArgSpec = ReadonlyArray<readonly [name: string, kind: ArgKind]>;

/** Decoded arguments by name (absent ones are undefined). */
export type Args = Record<string, bigint | string | boolean | Uint8Array | undefined>;

function bad(name: string, why: string): never {
  throw new InvalidParamsError(`error converting json params to arguments: ${name}: ${why}`);
}

function hexToBytesStrict(name: string, s: string): Uint8Array {
  const h = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) bad(name, `invalid hex string "${s}"`);
  return Uint8Array.from(Buffer.from(h, 'hex'));
}

function fromJson(name: string, kind: ArgKind, v: unknown): Args[string] {
  if (v === null || v === undefined) return undefined;
  switch (kind) {
    case 'int': {
      const s = typeof v === 'number' && Number.isInteger(v) ? String(v) : v;
      if (typeof s !== 'string' || !/^-?\d+$/.test(s)) bad(name, `invalid integer ${JSON.stringify(v)}`);
      return BigInt(s);
    }
    case 'bool':
      if (typeof v !== 'boolean') bad(name, `invalid boolean ${JSON.stringify(v)}`);
      return v;
    case 'string':
      if (typeof v !== 'string') bad(name, `invalid string ${JSON.stringify(v)}`);
      return v;
    case 'hexBytes':
      if (typeof v !== 'string') bad(name, `invalid hex string ${JSON.stringify(v)}`);
      return hexToBytesStrict(name, v);
    case 'base64Bytes': {
      if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) bad(name, `invalid base64 ${JSON.stringify(v)}`);
      return Uint8Array.from(Buffer.from(v, 'base64'));
    }
  }
}

/** Decodes JSON-RPC params (object, array or absent). */
export function argsFromJson(spec: ArgSpec, params: unknown): Args {
  const out: Args = {};
  if (params === undefined || params === null) return out;
  if (Array.isArray(params)) {
    if (params.length > spec.length) bad('params', `expected at most ${spec.length} params, got ${params.length}`);
    spec.forEach(([name, kind], i) => (out[name] = fromJson(name, kind, params[i])));
    return out;
  }
  if (typeof params !== 'object') bad('params', 'expected an object or an array');
  const p = params as Record<string, unknown>;
  for (const [name, kind] of spec) out[name] = fromJson(name, kind, p[name]);
  return out;
}

/** Decodes URI query arguments: strings quoted, bytes as 0x-hex or a quoted string, numbers bare or quoted. */
export function argsFromUri(spec: ArgSpec, query: URLSearchParams): Args {
  const out: Args = {};
  for (const [name, kind] of spec) {
    const raw = query.get(name);
    if (raw === null || raw === '') continue;
    const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
    const inner = quoted ? raw.slice(1, -1) : raw;
    switch (kind) {
      case 'int':
        out[name] = fromJson(name, kind, inner);
        break;
      case 'bool':
        if (inner !== 'true' && inner !== 'false') bad(name, `invalid boolean ${raw}`);
        out[name] = inner === 'true';
        break;
      case 'string':
        if (!quoted) bad(name, `invalid string ${raw}: strings must be quoted`);
        out[name] = inner;
        break;
      case 'hexBytes':
      case 'base64Bytes':
        if (raw.startsWith('0x') || raw.startsWith('0X')) out[name] = hexToBytesStrict(name, raw);
        else if (quoted) out[name] = new TextEncoder().encode(inner);
        else bad(name, `invalid bytes ${raw}: use 0x-hex or a quoted string`);
        break;
    }
  }
  return out;
}
