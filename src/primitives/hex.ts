// Hex helpers. Inside the node numbers are bigint and bytes are Uint8Array; hex exists only at the edges.
import { hexToBytes as utilHexToBytes } from '@ethereumjs/util';

export type Hex = `0x${string}`;

/** Encodes bytes as 0x-prefixed lower-case hex. */
export function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${bareHex(bytes)}` as Hex;
}

/**
 * Node's native hex encoder called on the bytes themselves: Buffer.prototype's hexSlice accepts any Uint8Array, and
 * skipping the Buffer view halves the cost of a 32-byte word (eth_call's result). Not a documented API, so a Node
 * without it falls back to the view.
 */
const nativeHexSlice = (Buffer.prototype as { hexSlice?: (this: Uint8Array, start: number, end: number) => string })
  .hexSlice;

/** Lower-case hex without a prefix: map keys, log lines, file names. */
export function bareHex(bytes: Uint8Array): string {
  // Node's native encoder returns one flat string. A per-byte `+=` loop (noble's, behind @ethereumjs/util) builds a
  // rope of one cons-string per byte; a large reply holds millions of them until JSON.stringify flattens them, and
  // a large eth_getLogs reply then spends most of its time in GC.
  if (nativeHexSlice !== undefined) return nativeHexSlice.call(bytes, 0, bytes.byteLength);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Decodes 0x-prefixed hex (even length) into bytes; the caller validates the format first. */
export function hexToBytes(hex: string): Uint8Array {
  return utilHexToBytes(hex as Hex);
}

/** Encodes a non-negative integer as a JSON-RPC QUANTITY (no leading zeros, 0 → "0x0"). */
export function toQuantity(n: bigint | number): Hex {
  return `0x${n.toString(16)}`;
}

/** Big-endian minimal bytes of a non-negative bigint (0 → empty). */
export function bigintToBytes(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0);
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return Buffer.from(hex, 'hex');
}

/** Big-endian bytes → bigint (empty → 0). */
export function bytesToBigint(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  return BigInt('0x' + bareHex(b));
}

/** Left-pads bytes with zeros to `len` bytes. */
export function padLeft(b: Uint8Array, len: number): Uint8Array {
  if (b.length >= len) return b;
  const out = new Uint8Array(len);
  out.set(b, len - b.length);
  return out;
}

/** 8-byte big-endian encoding of a block number (sortable LevelDB keys). */
export function u64be(n: bigint | number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

/** Reads an 8-byte big-endian number. */
export function readU64be(b: Uint8Array, offset = 0): bigint {
  return new DataView(b.buffer, b.byteOffset + offset, 8).getBigUint64(0);
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Byte-wise equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
