// Byte helpers shared by the precompiles: fixed-size views with the EVM's zero padding, big-endian integers.

/** `input[offset, offset + length)` with zeros past the end of `input` (calldata semantics); never longer than `length`. */
export function padded(input: Uint8Array, offset: number, length: number): Uint8Array {
  if (offset + length <= input.length) return input.subarray(offset, offset + length);
  const out = new Uint8Array(length);
  if (offset < input.length) out.set(input.subarray(offset));
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
