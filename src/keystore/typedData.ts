// EIP-712 typed structured data: the digest `eth_signTypedData_v4` signs (MetaMask's v4 rules: arrays and nested
// structs allowed). keccak256("\x19\x01" ‖ hashStruct(EIP712Domain, domain) ‖ hashStruct(primaryType, message)).
import { InvalidParamsError } from '../errors/index.ts';
import { keccak256, keccakUtf8 } from '../primitives/hash.ts';
import { concatBytes, hexToBytes } from '../primitives/hex.ts';

/** One member of a struct type. */
export interface TypedField {
  name: string;
  type: string;
}

/** The typed data document as wallets send it. */
export interface TypedData {
  types: Record<string, TypedField[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

const DOMAIN_FIELDS: Record<string, string> = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
};

const fail = (why: string): never => {
  throw new InvalidParamsError(`invalid typed data: ${why}`);
};

/** Checks the JSON shape of a typed data document (an object, or a string holding one, as geth accepts). */
export function parseTypedData(raw: unknown): TypedData {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      fail('not JSON');
    }
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('expected an object');
  const o = v as Record<string, unknown>;
  const types = o['types'];
  if (typeof types !== 'object' || types === null || Array.isArray(types)) return fail('types must be an object');
  for (const [name, fields] of Object.entries(types as Record<string, unknown>)) {
    if (!Array.isArray(fields)) return fail(`type ${name} must be a list of fields`);
    for (const f of fields) {
      if (typeof f !== 'object' || f === null || typeof f.name !== 'string' || typeof f.type !== 'string') {
        return fail(`type ${name} has a field without a string name and type`);
      }
    }
  }
  if (typeof o['primaryType'] !== 'string') return fail('primaryType must be a string');
  const domain = o['domain'] ?? {};
  const message = o['message'] ?? {};
  if (typeof domain !== 'object' || domain === null) return fail('domain must be an object');
  if (typeof message !== 'object' || message === null) return fail('message must be an object');
  const t = { ...(types as Record<string, TypedField[]>) };
  // Wallets may leave EIP712Domain out; it then follows from the domain's fields, in the EIP's order.
  t['EIP712Domain'] ??= Object.keys(DOMAIN_FIELDS)
    .filter((k) => (domain as Record<string, unknown>)[k] !== undefined)
    .map((k) => ({ name: k, type: DOMAIN_FIELDS[k]! }));
  return {
    types: t,
    primaryType: o['primaryType'] as string,
    domain: domain as Record<string, unknown>,
    message: message as Record<string, unknown>,
  };
}

function baseType(type: string): string {
  const i = type.indexOf('[');
  return i < 0 ? type : type.slice(0, i);
}

/** The struct types `type` refers to, itself first, then the others sorted by name (EIP-712 encodeType). */
function dependencies(types: TypedData['types'], type: string, found = new Set<string>()): Set<string> {
  const base = baseType(type);
  if (found.has(base) || types[base] === undefined) return found;
  found.add(base);
  for (const f of types[base]!) dependencies(types, f.type, found);
  return found;
}

function encodeType(types: TypedData['types'], type: string): string {
  const [primary, ...rest] = [...dependencies(types, type)];
  return [primary!, ...rest.sort()]
    .map((t) => `${t}(${types[t]!.map((f) => `${f.type} ${f.name}`).join(',')})`)
    .join('');
}

function toBigint(v: unknown, what: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) {
    return v.startsWith('-') ? -BigInt(v.slice(1)) : BigInt(v);
  }
  return fail(`${what}: expected an integer, got ${JSON.stringify(v)}`);
}

function toBytes(v: unknown, what: string): Uint8Array {
  if (typeof v === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(v)) return hexToBytes(v.toLowerCase());
  return fail(`${what}: expected 0x-prefixed hex bytes, got ${JSON.stringify(v)}`);
}

function word(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = BigInt.asUintN(256, n);
  for (let i = 31; i >= 0 && x > 0n; i--, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
}

/** The 32-byte encoding of one value of `type` (EIP-712 encodeData member rules). */
function encodeValue(types: TypedData['types'], type: string, value: unknown, what: string): Uint8Array {
  if (type.endsWith(']')) {
    if (!Array.isArray(value)) return fail(`${what}: expected an array`);
    const inner = type.slice(0, type.lastIndexOf('['));
    const size = type.slice(type.lastIndexOf('[') + 1, -1);
    if (size !== '' && Number(size) !== value.length) fail(`${what}: expected ${size} elements, got ${value.length}`);
    return keccak256(concatBytes(...value.map((e, i) => encodeValue(types, inner, e, `${what}[${i}]`))));
  }
  if (types[type] !== undefined) {
    if (typeof value !== 'object' || value === null) return fail(`${what}: expected a ${type} object`);
    return hashStruct(types, type, value as Record<string, unknown>);
  }
  if (type === 'string') {
    if (typeof value !== 'string') return fail(`${what}: expected a string`);
    return keccakUtf8(value);
  }
  if (type === 'bytes') return keccak256(toBytes(value, what));
  if (type === 'bool') {
    if (typeof value !== 'boolean') return fail(`${what}: expected a boolean`);
    return word(value ? 1n : 0n);
  }
  if (type === 'address') {
    const b = toBytes(value, what);
    if (b.length !== 20) fail(`${what}: expected a 20-byte address`);
    return word(BigInt('0x' + Buffer.from(b).toString('hex')));
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    const bits = int[2] === '' ? 256 : Number(int[2]);
    if (bits < 8 || bits > 256 || bits % 8 !== 0) fail(`unknown type ${type}`);
    const n = toBigint(value, what);
    const ok =
      int[1] === 'u' ? n >= 0n && n < 1n << BigInt(bits) : n >= -(1n << BigInt(bits - 1)) && n < 1n << BigInt(bits - 1);
    if (!ok) fail(`${what}: ${n} does not fit ${type}`);
    return word(n);
  }
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed) {
    const size = Number(fixed[1]);
    if (size < 1 || size > 32) fail(`unknown type ${type}`);
    const b = toBytes(value, what);
    if (b.length > size) fail(`${what}: more than ${size} bytes`);
    const out = new Uint8Array(32);
    out.set(b, 0);
    return out;
  }
  return fail(`unknown type ${type}`);
}

/** hashStruct(s) = keccak256(typeHash ‖ encodeData(s)). */
function hashStruct(types: TypedData['types'], type: string, data: Record<string, unknown>): Uint8Array {
  const fields = types[type] ?? fail(`unknown type ${type}`);
  const parts = [keccakUtf8(encodeType(types, type))];
  for (const f of fields) {
    const v = data[f.name];
    if (v === undefined || v === null) fail(`${type}.${f.name} is missing`);
    parts.push(encodeValue(types, f.type, v, `${type}.${f.name}`));
  }
  return keccak256(concatBytes(...parts));
}

/** The EIP-712 digest a v4 signature signs. */
export function typedDataDigest(td: TypedData): Uint8Array {
  const domain = hashStruct(td.types, 'EIP712Domain', td.domain);
  if (td.primaryType === 'EIP712Domain') return keccak256(concatBytes(Uint8Array.of(0x19, 0x01), domain));
  return keccak256(concatBytes(Uint8Array.of(0x19, 0x01), domain, hashStruct(td.types, td.primaryType, td.message)));
}
