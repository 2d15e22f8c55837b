// Bytes and numbers for every layer, the engine included: 256-bit words and addresses as bigint, bytes as Uint8Array.
// Hex text (bytesToHex, quantities) is in hex.ts, which builds on the two decoders here.

/** 2^256 - 1. */
export const MASK256 = (1n << 256n) - 1n;
/** 2^160 - 1. */
export const MASK160 = (1n << 160n) - 1n;
/** 2^255: the sign bit of a word. */
export const SIGN_BIT = 1n << 255n;

/** The empty byte string (shared; never written). */
export const EMPTY_BYTES = new Uint8Array(0);

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
  // eth_getLogs of 20k logs spent 58% of its time in GC because of it.
  if (nativeHexSlice !== undefined) return nativeHexSlice.call(bytes, 0, bytes.byteLength);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * Decodes hex, with or without 0x, into fresh bytes; an odd length reads as if a leading zero were there (a QUANTITY).
 * Throws on a character that is not hex, which Buffer's decoder would drop silently.
 */
export function hexToBytes(hex: string): Uint8Array {
  let s = hex.startsWith('0x') ? hex.slice(2) : hex;
  if (s.length % 2 !== 0) s = '0' + s;
  const buf = Buffer.from(s, 'hex');
  if (buf.length * 2 !== s.length) throw new Error(`invalid hex: ${hex.slice(0, 20)}`);
  return new Uint8Array(buf);
}

/** Big-endian unsigned integer of any length. */
export function bytesToBigint(b: Uint8Array): bigint {
  const n = b.length;
  if (n === 0) return 0n;
  if (n === 32) return wordAt(b, 0);
  if (n === 20) return addressFromBytes(b);
  if (n <= 6) {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + b[i]!;
    return BigInt(v);
  }
  return BigInt('0x' + bareHex(b));
}

/**
 * Scratch space for word reads, with its own ArrayBuffer. A DataView over the caller's bytes would read `b.buffer`,
 * and for a small array V8 keeps on its heap (up to 64 bytes: a keccak digest, a fresh word) that first access
 * moves the bytes into a new ArrayBuffer: ~0.4 µs, 4x the read itself. Copying 32 bytes here is cheaper everywhere.
 */
const SCRATCH = new Uint8Array(new ArrayBuffer(32));
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);

/** Reads a 32-byte word from `b` at `off`, zero-padding past the end. */
export function wordAt(b: Uint8Array, off: number): bigint {
  const end = off + 32;
  if (end <= b.length) {
    for (let i = 0; i < 32; i++) SCRATCH[i] = b[off + i]!;
  } else {
    const n = off < b.length ? b.length - off : 0;
    for (let i = 0; i < n; i++) SCRATCH[i] = b[off + i]!;
    SCRATCH.fill(0, n);
  }
  return wordOfView(SCRATCH_VIEW, 0);
}

const TWO32 = 2 ** 32;

/**
 * The 32-byte big-endian word at `off` in `dv`. Each BigInt operation allocates, so a word whose leading bytes are
 * zero (memory pointers, lengths, amounts, addresses: most words) is built from fewer lanes: a value below 2^53 from
 * one double, one below 2^192 without the top lane. A full word takes four 64-bit lanes (faster than a hex parse).
 */
export function wordOfView(dv: DataView, off: number): bigint {
  const a0 = dv.getUint32(off);
  const a1 = dv.getUint32(off + 4);
  const a2 = dv.getUint32(off + 8);
  const a3 = dv.getUint32(off + 12);
  const a4 = dv.getUint32(off + 16);
  const a5 = dv.getUint32(off + 20);
  const a6 = dv.getUint32(off + 24);
  if ((a0 | a1 | a2 | a3 | a4 | a5) === 0 && a6 < 0x200000) return BigInt(a6 * TWO32 + dv.getUint32(off + 28));
  const low = (dv.getBigUint64(off + 16) << 64n) | dv.getBigUint64(off + 24);
  if ((a0 | a1 | a2 | a3) === 0) return low;
  if ((a0 | a1) === 0) return (dv.getBigUint64(off + 8) << 128n) | low;
  return (((dv.getBigUint64(off) << 64n) | dv.getBigUint64(off + 8)) << 128n) | low;
}

/** A 20-byte big-endian address as a 160-bit integer (through the scratch word, as wordAt: no DataView over b). */
export function addressFromBytes(b: Uint8Array): bigint {
  for (let i = 0; i < 20; i++) SCRATCH[i] = b[i]!;
  const dv = SCRATCH_VIEW;
  return (BigInt(dv.getUint32(0)) << 128n) | (dv.getBigUint64(4) << 64n) | dv.getBigUint64(12);
}

/** Words below this are written from one double: memory pointers, lengths, small amounts (most MSTOREs). */
const SMALL_WORD = 1n << 48n;
/** Arrays longer than this never live on V8's heap, so a DataView over them costs no copy (see SCRATCH). */
const ON_HEAP_MAX = 64;

/** Writes `v` (< 2^256) as 32 big-endian bytes into `b` at `off`. */
export function writeWord(b: Uint8Array, off: number, v: bigint): void {
  if (v >= 0n && v < SMALL_WORD) {
    let n = Number(v);
    for (let i = off + 31; i >= off + 26; i--) {
      b[i] = n & 0xff;
      n = Math.floor(n / 256);
    }
    b.fill(0, off, off + 26);
    return;
  }
  const dv = b.length > ON_HEAP_MAX ? new DataView(b.buffer, b.byteOffset + off, 32) : SCRATCH_VIEW;
  writeLanes(dv, 0, v);
  if (dv === SCRATCH_VIEW) for (let i = 0; i < 32; i++) b[off + i] = SCRATCH[i]!;
}

const MASK64 = 0xffffffffffffffffn;

/** Writes `v` (< 2^256) as 32 big-endian bytes at `off` in `dv`, in four 64-bit lanes. */
function writeLanes(dv: DataView, off: number, v: bigint): void {
  dv.setBigUint64(off, v >> 192n);
  dv.setBigUint64(off + 8, (v >> 128n) & MASK64);
  dv.setBigUint64(off + 16, (v >> 64n) & MASK64);
  dv.setBigUint64(off + 24, v & MASK64);
}

/**
 * Writes `v` (0 <= v < 2^256) as 32 big-endian bytes at `off` in `dv` (MSTORE through the memory's own view): a word
 * below 2^48 from one double, as writeWord does, else four lanes.
 */
export function writeWordToView(dv: DataView, off: number, v: bigint): void {
  if (v >= SMALL_WORD) {
    writeLanes(dv, off, v);
    return;
  }
  const n = Number(v);
  for (let i = 0; i < 24; i += 4) dv.setUint32(off + i, 0);
  dv.setUint32(off + 24, Math.floor(n / TWO32));
  dv.setUint32(off + 28, n >>> 0);
}

/** A word as 32 big-endian bytes. */
export function wordToBytes(v: bigint): Uint8Array {
  const b = new Uint8Array(32);
  writeWord(b, 0, v);
  return b;
}

/** An address as 20 big-endian bytes. */
export function addressToBytes(a: bigint): Uint8Array {
  const b = new Uint8Array(20);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, Number(a >> 128n));
  dv.setBigUint64(4, (a >> 64n) & 0xffffffffffffffffn);
  dv.setBigUint64(12, a & 0xffffffffffffffffn);
  return b;
}

/** `value` as exactly `length` big-endian bytes, zero-padded on the left (the value must fit). */
export function bigintToFixedBytes(value: bigint, length: number): Uint8Array {
  const min = bigintToMinBytes(value);
  if (min.length === length) return min === EMPTY_BYTES ? new Uint8Array(0) : min;
  const out = new Uint8Array(length);
  out.set(min, length - min.length);
  return out;
}

/** Left-pads bytes with zeros to `len` bytes (returns `b` itself when it is long enough). */
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

/** Equality of two byte strings. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Minimal big-endian bytes of a non-negative integer (empty for 0), as RLP wants. */
export function bigintToMinBytes(v: bigint): Uint8Array {
  if (v === 0n) return EMPTY_BYTES;
  if (v < 0n) throw new RangeError('a negative integer has no big-endian encoding');
  // Nonces, gas and balances of a block's accounts: bytes straight from the number, no hex string between.
  if (v <= 0xffffffffffffn) {
    let n = Number(v);
    let len = 0;
    for (let t = n; t > 0; t = Math.floor(t / 256)) len++;
    const out = new Uint8Array(len);
    for (let i = len - 1; i >= 0; i--, n = Math.floor(n / 256)) out[i] = n % 256;
    return out;
  }
  if (v <= MASK256) {
    const word = new Uint8Array(32);
    writeWord(word, 0, v);
    let i = 0;
    while (word[i] === 0) i++;
    return word.slice(i);
  }
  return hexToBytes(v.toString(16));
}
