// Logs blooms (Yellow Paper §4.3.1): 2,048 bits in 256 bytes; each log's address and each of its topics set three
// bits, the low 11 bits of the first three big-endian byte pairs of their keccak-256.
import { keccak256 } from './keccak.ts';

/** The three bloom bit indexes of `value` (its 20 or 32 bytes), packed as b0 + b1·2¹¹ + b2·2²² (a memo can keep them). */
export function bloomBitsOf(value: Uint8Array): number {
  const h = keccak256(value);
  let bits = 0;
  for (let i = 4, m = 1 << 22; i >= 0; i -= 2, m >>= 11) bits += (((h[i]! << 8) | h[i + 1]!) & 2047) * m;
  return bits;
}

/** Sets in `bloom` the three bits packed by bloomBitsOf. */
export function setBloomBits(bloom: Uint8Array, bits: number): void {
  for (let j = 0, m = 1; j < 3; j++, m *= 2048) {
    const bit = Math.floor(bits / m) & 2047;
    bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
  }
}

/** The bloom of `logs`: every address and topic added. */
export function logsBloom(logs: readonly { address: Uint8Array; topics: readonly Uint8Array[] }[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const l of logs) {
    setBloomBits(bloom, bloomBitsOf(l.address));
    for (const t of l.topics) setBloomBits(bloom, bloomBitsOf(t));
  }
  return bloom;
}
