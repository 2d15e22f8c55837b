// DATA-style codecs (byte strings, addresses, hashes, storage keys) and the plain JSON codecs (bool, string,
// arrays, objects). Error texts follow geth's hexutil and encoding/json wording.
import { hexToBytes, padLeft } from '../../primitives/hex.ts';
import type { Codec } from './codec.ts';
import { ParamError, codec } from './codec.ts';

/** The JSON kind of a decoded value, as Go's encoding/json names it ("number", "string", "object", …). */
export function jsonKind(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'array';
  if (typeof raw === 'boolean') return 'bool';
  if (typeof raw === 'number' || typeof raw === 'bigint') return 'number';
  if (typeof raw === 'string') return 'string';
  return 'object';
}

/** Go's json.UnmarshalTypeError: "json: cannot unmarshal <value> into Go value|struct field <f> of type <goType>". */
export class UnmarshalTypeError extends ParamError {
  override name = 'UnmarshalTypeError';
  constructor(
    readonly value: string,
    readonly goType: string,
    readonly field?: string,
  ) {
    super(
      field === undefined
        ? `json: cannot unmarshal ${value} into Go value of type ${goType}`
        : `json: cannot unmarshal ${value} into Go struct field ${field} of type ${goType}`,
    );
  }
}

/** Re-attributes a codec failure to a struct field path like "TransactionArgs.gas"; other errors pass through. */
export function atField(e: unknown, path: string): unknown {
  if (e instanceof UnmarshalTypeError) {
    return e.field === undefined ? new UnmarshalTypeError(e.value, e.goType, path) : e;
  }
  if (e instanceof ParamError) return new ParamError(`${path}: ${e.message}`);
  return e;
}

/** A JSON object's fields. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isJsonObject(raw: unknown): raw is JsonObject {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

/** Decodes obj[key] with `c` unless absent or null; a failure names the field as `struct.path`. */
export function structField<T>(
  obj: JsonObject,
  key: string,
  c: Codec<T>,
  struct: string,
  path: string = key,
): T | undefined {
  return structValue(obj, key, obj[key], c, struct, path);
}

/**
 * structField for a value the caller has read as obj[key] already: a load by a constant name at each call site
 * stays monomorphic, where one `obj[key]` serving every field of a struct goes megamorphic.
 */
export function structValue<T>(
  obj: JsonObject,
  key: string,
  raw: unknown,
  c: Codec<T>,
  struct: string,
  path: string = key,
): T | undefined {
  // Most fields are absent: one failed lookup answers, and only a present value is checked to be the object's own.
  if (raw === undefined || raw === null || !Object.hasOwn(obj, key)) return undefined;
  try {
    return c.decode(raw);
  } catch (e) {
    throw atField(e, `${struct}.${path}`);
  }
}

/** Requires a JSON string, else a non-string type error for `goType` (hexutil style). */
export function expectHexString(raw: unknown, goType: string): string {
  if (typeof raw !== 'string') throw new UnmarshalTypeError('non-string', goType);
  return raw;
}

/** True if `s` starts with "0x" or "0X" (geth accepts both). */
export function has0xPrefix(s: string): boolean {
  return s.length >= 2 && s[0] === '0' && (s[1] === 'x' || s[1] === 'X');
}

/** True if every character of `s` is a hex digit (either case); "" is vacuously hex. */
export function isHexDigits(s: string): boolean {
  return /^[0-9a-fA-F]*$/.test(s);
}

/** Checks DATA text (non-empty, 0x prefix, even length); the digits start at index 2. */
function checkText(s: string, goType: string): void {
  if (s.length === 0) throw new UnmarshalTypeError('empty hex string', goType);
  if (!has0xPrefix(s)) throw new UnmarshalTypeError('hex string without 0x prefix', goType);
  if (s.length % 2 !== 0) throw new UnmarshalTypeError('hex string of odd length', goType);
}

/** Nibble value of each ASCII code (-1: not a hex digit). */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[65 + i] = NIBBLE[97 + i] = 10 + i;

/** Below this many digits a table loop beats the regex check plus Buffer's decoder and the copy out of its pool. */
const LOOP_DIGITS = 256;

/**
 * Decodes the hex digits of checked DATA text (after its 0x) into bytes, rejecting non-hex characters. The digits
 * are read in place: a slice of the text would make every read go through the sliced string, which is slower.
 */
function digitsToBytes(s: string, goType: string): Uint8Array {
  const n = (s.length - 2) >> 1;
  if (n > LOOP_DIGITS >> 1) {
    const digits = s.slice(2);
    if (!isHexDigits(digits)) throw new UnmarshalTypeError('invalid hex string', goType);
    // Node's native decoder (the digits are validated above), copied out of Buffer's shared pool.
    return new Uint8Array(Buffer.from(digits, 'hex'));
  }
  const out = new Uint8Array(n);
  for (let i = 0, j = 2; i < n; i++, j += 2) {
    const a = s.charCodeAt(j);
    const b = s.charCodeAt(j + 1);
    // Codes ≥ 128 fall outside the table (any non-ASCII character is an invalid digit).
    const hi = a < 128 ? NIBBLE[a]! : -1;
    const lo = b < 128 ? NIBBLE[b]! : -1;
    if ((hi | lo) < 0) throw new UnmarshalTypeError('invalid hex string', goType);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** Decodes a fixed-size DATA value of `size` bytes, naming `goType` in errors (geth's UnmarshalFixedJSON). */
function fixedBytes(raw: unknown, size: number, goType: string): Uint8Array {
  const s = expectHexString(raw, goType);
  checkText(s, goType);
  if (s.length - 2 !== size * 2) {
    throw new ParamError(`hex string has length ${s.length - 2}, want ${size * 2} for ${goType}`);
  }
  return digitsToBytes(s, goType);
}

/** DATA: 0x-prefixed even-length hex of any length ("0x" = empty) → bytes. */
export const bytes: Codec<Uint8Array> = codec((raw) => {
  const goType = 'hexutil.Bytes';
  const s = expectHexString(raw, goType);
  checkText(s, goType);
  return digitsToBytes(s, goType);
});

/** A 20-byte address → bytes. */
export const address: Codec<Uint8Array> = codec((raw) => fixedBytes(raw, 20, 'common.Address'));

/** A 32-byte hash → bytes. */
export const hash32: Codec<Uint8Array> = codec((raw) => fixedBytes(raw, 32, 'common.Hash'));

/** eth_getStorageAt/eth_getProof key: hex integer of up to 32 bytes (0x optional, odd length ok) → 32 bytes. */
export const storageSlot: Codec<Uint8Array> = codec((raw) => {
  if (typeof raw !== 'string') throw new UnmarshalTypeError(jsonKind(raw), 'string');
  if (raw.length === 0) throw new ParamError('unable to decode storage key: empty hex string');
  let digits = has0xPrefix(raw) ? raw.slice(2) : raw;
  if (!isHexDigits(digits)) throw new ParamError('unable to decode storage key: hex string invalid');
  if (digits.length % 2 !== 0) digits = '0' + digits;
  if (digits.length > 64) {
    throw new ParamError('unable to decode storage key: hex string too long, want at most 32 bytes');
  }
  return padLeft(hexToBytes('0x' + digits.toLowerCase()), 32);
});

/** A signed raw transaction: non-empty DATA → bytes. */
export const rawTx: Codec<Uint8Array> = codec((raw) => {
  const b = bytes.decode(raw);
  if (b.length === 0) throw new ParamError('typed transaction too short');
  return b;
});

/** A JSON boolean. */
export const bool: Codec<boolean> = codec((raw) => {
  if (typeof raw !== 'boolean') throw new UnmarshalTypeError(jsonKind(raw), 'bool');
  return raw;
});

/** A JSON string. */
export const string: Codec<string> = codec((raw) => {
  if (typeof raw !== 'string') throw new UnmarshalTypeError(jsonKind(raw), 'string');
  return raw;
});

/**
 * A JSON array whose elements all decode with `element`; `max` caps the length, `goType` is the Go type geth names
 * when the value is not an array (default "array").
 */
export function array<T>(element: Codec<T>, opts: { max?: number; goType?: string } = {}): Codec<T[]> {
  const goType = opts.goType ?? 'array';
  return codec((raw) => {
    if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), goType);
    if (opts.max !== undefined && raw.length > opts.max) {
      throw new ParamError(`too many elements: ${raw.length}, want at most ${opts.max}`);
    }
    return raw.map((item: unknown) => element.decode(item));
  });
}

/** eth_feeHistory reward percentiles: numbers in [0, 100], strictly increasing (geth's current rule). */
export const rewardPercentiles: Codec<number[]> = codec((raw) => {
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), '[]float64');
  const out: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const p: unknown = raw[i];
    if (typeof p !== 'number') throw new UnmarshalTypeError(jsonKind(p), 'float64');
    if (!(p >= 0 && p <= 100)) throw new ParamError(`invalid reward percentile: ${p.toFixed(6)}`);
    const prev = out[i - 1];
    if (prev !== undefined && p <= prev) {
      throw new ParamError(`invalid reward percentile: #${i - 1}:${prev.toFixed(6)} >= #${i}:${p.toFixed(6)}`);
    }
    out.push(p);
  }
  return out;
});

/** Any JSON object (not an array or null), passed through as-is (tracer configs and similar). */
export const jsonObject: Codec<Record<string, unknown>> = codec((raw) => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UnmarshalTypeError(jsonKind(raw), 'object');
  }
  return raw as Record<string, unknown>;
});
