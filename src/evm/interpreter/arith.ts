// The word arithmetic the loop calls out to: signed reads, EXP, CLZ and the exponent's length. Kept apart from the
// loop so interpreter.ts holds only the dispatch; V8 inlines these small functions across modules.
import { MASK256, SIGN_BIT } from '../../primitives/bytes.ts';

/** A word read as a two's-complement signed integer. */
export function toSigned(a: bigint): bigint {
  return a >= SIGN_BIT ? a - (1n << 256n) : a;
}

/** EXP: base ** e mod 2^256 by squaring (the caller charges EIP-160's per-byte gas). */
export function exp(base: bigint, e: bigint): bigint {
  let r = 1n;
  let b = base;
  while (e > 0n) {
    if (e & 1n) r = (r * b) & MASK256;
    e >>= 1n;
    if (e > 0n) b = (b * b) & MASK256;
  }
  return r;
}

/** 0n..256n, so CLZ pushes a shared bigint instead of allocating one. */
const SMALL: readonly bigint[] = Array.from({ length: 257 }, (_, i) => BigInt(i));

/** EIP-7939: the leading zero bits of a 256-bit word (256 for 0), from its hex length and first digit. */
export function clz(x: bigint): bigint {
  if (x === 0n) return 256n;
  const hex = x.toString(16);
  return SMALL[256 - 4 * hex.length + Math.clz32(parseInt(hex[0]!, 16)) - 28]!;
}

/** The bytes EXP charges for: the exponent's length without leading zero bytes. */
export function byteLength(v: bigint): number {
  return v === 0n ? 0 : Math.ceil(v.toString(16).length / 2);
}
