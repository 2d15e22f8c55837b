// The Solidity ABI codec the chain's precompiles speak: canonical type strings ("uint256", "(string,uint8)[]"),
// values as bigint (integers), Uint8Array (address, bytes, bytesN), boolean, string, and arrays for tuples and
// arrays. Decoding is strict: every offset and length is bounds-checked, so hostile calldata gets an error.
import { keccak256 } from './hash.ts';
import { concatBytes } from './hex.ts';

/** A decoded or to-be-encoded ABI value. */
export type AbiValue = bigint | boolean | string | Uint8Array | AbiValue[];

/** A parsed ABI type. */
export type AbiType =
  | { kind: 'uint' | 'int'; bits: number }
  | { kind: 'address' | 'bool' | 'string' | 'bytes' }
  | { kind: 'fixedBytes'; size: number }
  | { kind: 'array'; of: AbiType; length?: number }
  | { kind: 'tuple'; of: AbiType[] };

/** Malformed calldata or a value that does not fit its type. */
export class AbiError extends Error {}

const utf8 = new TextEncoder();
const utf8dec = new TextDecoder('utf-8', { fatal: true });

/** Parses one canonical type string. */
export function parseType(text: string): AbiType {
  const [t, rest] = parseAt(text.replace(/\s+/g, ''), 0);
  if (rest !== text.replace(/\s+/g, '').length) throw new AbiError(`bad ABI type ${text}`);
  return t;
}

function parseAt(s: string, i: number): [AbiType, number] {
  let t: AbiType;
  if (s[i] === '(') {
    const of: AbiType[] = [];
    i++;
    if (s[i] === ')') i++;
    else
      for (;;) {
        const [c, j] = parseAt(s, i);
        of.push(c);
        i = j;
        if (s[i] === ',') i++;
        else if (s[i] === ')') {
          i++;
          break;
        } else throw new AbiError(`bad ABI type ${s}`);
      }
    t = { kind: 'tuple', of };
  } else {
    const m = /^[a-z]+[0-9]*/.exec(s.slice(i));
    if (!m) throw new AbiError(`bad ABI type ${s}`);
    t = elementary(m[0]);
    i += m[0].length;
  }
  while (s[i] === '[') {
    const close = s.indexOf(']', i);
    if (close < 0) throw new AbiError(`bad ABI type ${s}`);
    const n = s.slice(i + 1, close);
    t = n === '' ? { kind: 'array', of: t } : { kind: 'array', of: t, length: Number(n) };
    i = close + 1;
  }
  return [t, i];
}

function elementary(name: string): AbiType {
  if (name === 'address' || name === 'bool' || name === 'string' || name === 'bytes') return { kind: name };
  const m = /^(uint|int|bytes)([0-9]+)$/.exec(name);
  if (!m) throw new AbiError(`unknown ABI type ${name}`);
  const n = Number(m[2]);
  if (m[1] === 'bytes') {
    if (n < 1 || n > 32) throw new AbiError(`unknown ABI type ${name}`);
    return { kind: 'fixedBytes', size: n };
  }
  if (n < 8 || n > 256 || n % 8 !== 0) throw new AbiError(`unknown ABI type ${name}`);
  return { kind: m[1] as 'uint' | 'int', bits: n };
}

/** Whether a type's encoding has a dynamic size (it is referenced by an offset in its parent). */
function isDynamic(t: AbiType): boolean {
  if (t.kind === 'string' || t.kind === 'bytes') return true;
  if (t.kind === 'array') return t.length === undefined || isDynamic(t.of);
  if (t.kind === 'tuple') return t.of.some(isDynamic);
  return false;
}

/** Bytes a static type takes in its parent's head. */
function headSize(t: AbiType): number {
  if (isDynamic(t)) return 32;
  if (t.kind === 'array') return t.length! * headSize(t.of);
  if (t.kind === 'tuple') return t.of.reduce((n, c) => n + headSize(c), 0);
  return 32;
}

const TWO_256 = 1n << 256n;

function word(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v < 0n ? v + TWO_256 : v;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function readWord(b: Uint8Array, at: number): bigint {
  if (at + 32 > b.length) throw new AbiError('ABI data too short');
  let x = 0n;
  for (let i = 0; i < 32; i++) x = (x << 8n) | BigInt(b[at + i]!);
  return x;
}

function padded(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(bytes.length / 32) * 32);
  out.set(bytes);
  return out;
}

function encodeOne(t: AbiType, v: AbiValue): Uint8Array {
  switch (t.kind) {
    case 'uint':
    case 'int': {
      if (typeof v !== 'bigint') throw new AbiError(`${t.kind}${t.bits} wants a bigint`);
      const max = t.kind === 'uint' ? 1n << BigInt(t.bits) : 1n << BigInt(t.bits - 1);
      const min = t.kind === 'uint' ? 0n : -max;
      if (v < min || v >= max) throw new AbiError(`${v} does not fit ${t.kind}${t.bits}`);
      return word(v);
    }
    case 'bool':
      if (typeof v !== 'boolean') throw new AbiError('bool wants a boolean');
      return word(v ? 1n : 0n);
    case 'address': {
      if (!(v instanceof Uint8Array) || v.length !== 20) throw new AbiError('address wants 20 bytes');
      const out = new Uint8Array(32);
      out.set(v, 12);
      return out;
    }
    case 'fixedBytes': {
      if (!(v instanceof Uint8Array) || v.length !== t.size) throw new AbiError(`bytes${t.size} wants ${t.size} bytes`);
      const out = new Uint8Array(32);
      out.set(v);
      return out;
    }
    case 'string':
    case 'bytes': {
      const bytes = t.kind === 'string' ? (typeof v === 'string' ? utf8.encode(v) : undefined) : v;
      if (!(bytes instanceof Uint8Array))
        throw new AbiError(`${t.kind} wants a ${t.kind === 'string' ? 'string' : 'Uint8Array'}`);
      return concatBytes(word(BigInt(bytes.length)), padded(bytes));
    }
    case 'array': {
      if (!Array.isArray(v)) throw new AbiError('array wants an array');
      if (t.length !== undefined && v.length !== t.length) throw new AbiError(`array wants ${t.length} items`);
      const body = encodeTuple(
        v.map(() => t.of),
        v,
      );
      return t.length === undefined ? concatBytes(word(BigInt(v.length)), body) : body;
    }
    case 'tuple':
      if (!Array.isArray(v) || v.length !== t.of.length) throw new AbiError(`tuple wants ${t.of.length} items`);
      return encodeTuple(t.of, v);
  }
}

function encodeTuple(types: AbiType[], values: AbiValue[]): Uint8Array {
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let offset = types.reduce((n, t) => n + headSize(t), 0);
  types.forEach((t, i) => {
    const enc = encodeOne(t, values[i]!);
    if (isDynamic(t)) {
      heads.push(word(BigInt(offset)));
      tails.push(enc);
      offset += enc.length;
    } else heads.push(enc);
  });
  return concatBytes(...heads, ...tails);
}

/** Encodes values of the given types as a function's arguments or return values. */
export function abiEncode(types: readonly AbiType[], values: readonly AbiValue[]): Uint8Array {
  if (values.length !== types.length) throw new AbiError(`wants ${types.length} values, got ${values.length}`);
  return encodeTuple([...types], [...values]);
}

/** The largest count or length decoding accepts: calldata is bounded far below it. */
const MAX_LEN = 1n << 32n;

function decodeOne(t: AbiType, b: Uint8Array, at: number): AbiValue {
  switch (t.kind) {
    case 'uint':
    case 'int': {
      const x = readWord(b, at);
      if (t.kind === 'uint') {
        if (t.bits < 256 && x >> BigInt(t.bits) !== 0n) throw new AbiError(`value out of range for uint${t.bits}`);
        return x;
      }
      const v = x >= 1n << 255n ? x - TWO_256 : x;
      const half = 1n << BigInt(t.bits - 1);
      if (v < -half || v >= half) throw new AbiError(`value out of range for int${t.bits}`);
      return v;
    }
    case 'bool': {
      const x = readWord(b, at);
      if (x > 1n) throw new AbiError('invalid bool');
      return x === 1n;
    }
    case 'address': {
      const x = readWord(b, at);
      if (x >> 160n !== 0n) throw new AbiError('invalid address');
      return b.slice(at + 12, at + 32);
    }
    case 'fixedBytes':
      if (at + 32 > b.length) throw new AbiError('ABI data too short');
      return b.slice(at, at + t.size);
    case 'string':
    case 'bytes': {
      const len = readWord(b, at);
      if (len > MAX_LEN || at + 32 + Number(len) > b.length) throw new AbiError('ABI data too short');
      const bytes = b.slice(at + 32, at + 32 + Number(len));
      if (t.kind === 'bytes') return bytes;
      try {
        return utf8dec.decode(bytes);
      } catch {
        throw new AbiError('invalid UTF-8 string');
      }
    }
    case 'array': {
      let n = t.length;
      let start = at;
      if (n === undefined) {
        const len = readWord(b, at);
        if (len > MAX_LEN || len * 32n > BigInt(b.length)) throw new AbiError('ABI array length out of range');
        n = Number(len);
        start = at + 32;
      }
      return decodeTuple(new Array<AbiType>(n).fill(t.of), b, start);
    }
    case 'tuple':
      return decodeTuple(t.of, b, at);
  }
}

function decodeTuple(types: AbiType[], b: Uint8Array, start: number): AbiValue[] {
  const out: AbiValue[] = [];
  let head = start;
  for (const t of types) {
    if (isDynamic(t)) {
      const off = readWord(b, head);
      if (off > BigInt(b.length)) throw new AbiError('ABI offset out of range');
      out.push(decodeOne(t, b, start + Number(off)));
    } else out.push(decodeOne(t, b, head));
    head += headSize(t);
  }
  return out;
}

/** Decodes a function's arguments or return values. */
export function abiDecode(types: readonly AbiType[], data: Uint8Array): AbiValue[] {
  return decodeTuple([...types], data, 0);
}

/** The canonical string of a parsed type (for selectors). */
export function typeString(t: AbiType): string {
  switch (t.kind) {
    case 'uint':
    case 'int':
      return `${t.kind}${t.bits}`;
    case 'fixedBytes':
      return `bytes${t.size}`;
    case 'array':
      return `${typeString(t.of)}[${t.length ?? ''}]`;
    case 'tuple':
      return `(${t.of.map(typeString).join(',')})`;
    default:
      return t.kind;
  }
}

/** The 4-byte selector of `name(types)`. */
export function selectorOf(name: string, types: readonly AbiType[]): Uint8Array {
  return keccak256(utf8.encode(`${name}(${types.map(typeString).join(',')})`)).slice(0, 4);
}

/** The topic of an event `name(types)`. */
export function eventTopic(name: string, types: readonly AbiType[]): Uint8Array {
  return keccak256(utf8.encode(`${name}(${types.map(typeString).join(',')})`));
}

/** Encodes a revert with Solidity's Error(string). */
export function encodeRevertReason(message: string): Uint8Array {
  return concatBytes(Uint8Array.of(0x08, 0xc3, 0x79, 0xa0), abiEncode([{ kind: 'string' }], [message]));
}
