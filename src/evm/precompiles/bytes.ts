// Byte helpers shared by the precompiles: fixed-size views with the EVM's zero padding, big-endian integers.

/** `input[offset, offset + length)` with zeros past the end of `input` (calldata semantics); never longer than `length`. */
export function padded(input: Uint8Array, offset: number, length: number): Uint8Array {
  if (offset + length <= input.length) return input.subarray(offset, offset + length);
  const out = new Uint8Array(length);
  if (offset < input.length) out.set(input.subarray(offset));
  return out;
}

/** The big-endian unsigned integer in `bytes`. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex'));
}

/** `value` as `length` big-endian bytes (value must fit). */
export function bigIntToBytes(value: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  if (value === 0n) return out;
  const hex = value.toString(16);
  const bytes = Buffer.from(hex.length % 2 === 0 ? hex : '0' + hex, 'hex');
  out.set(bytes, length - bytes.length);
  return out;
}

/** True when every byte of `bytes[from, to)` is zero. */
export function allZero(bytes: Uint8Array, from = 0, to = bytes.length): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** True when the big-endian `bytes` are numerically below the big-endian `bound` of the same length. */
export function lessThan(bytes: Uint8Array, bound: Uint8Array): boolean {
  for (let i = 0; i < bound.length; i++) {
    if (bytes[i] !== bound[i]) return bytes[i]! < bound[i]!;
  }
  return false;
}

/** The number of 32-byte words needed for `length` bytes. */
export function words(length: number): bigint {
  return BigInt(Math.ceil(length / 32));
}

/** The bytes of a hex string (with or without 0x). */
export function hexToBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex'));
}

/** Lower-case hex of `bytes`, no prefix. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}
