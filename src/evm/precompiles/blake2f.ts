// 0x09 blake2f (EIP-152): the BLAKE2b compression function F with a caller-chosen round count. No maintained
// package exposes F with a round count (REFERENCE-ENGINE.md §7), so it is written here over 32-bit halves:
// word i of the state lives at [2i] (low) and [2i + 1] (high) of an Int32Array (int32 arithmetic stays in
// V8's small-integer representation; unsigned views are taken with >>> 0 only where a carry is computed).
import type { PurePrecompile } from '../types.ts';

const IV = new Int32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a, 0xade682d1,
  0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
].map((row) => Uint8Array.from(row, (i) => 2 * i));

/**
 * The mixing function G on state words a, b, c, d with message words at m[x], m[y] (indices of low halves).
 * The eight halves are read into locals once and written back once: the arithmetic stays in registers.
 */
function mix(v: Int32Array, m: Int32Array, a: number, b: number, c: number, d: number, x: number, y: number): void {
  let al = v[a]!,
    ah = v[a + 1]!,
    bl = v[b]!,
    bh = v[b + 1]!;
  let cl = v[c]!,
    ch = v[c + 1]!,
    dl = v[d]!,
    dh = v[d + 1]!;
  // a = a + b + m[x]; the low sum is below 3·2^32, its carry (lo / 2^32) goes to the high half.
  let lo = (al >>> 0) + (bl >>> 0) + (m[x]! >>> 0);
  ah = (ah + bh + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
  al = lo | 0;
  // d = rotr64(d ^ a, 32)
  let tl = dl ^ al;
  dl = dh ^ ah;
  dh = tl;
  // c = c + d
  lo = (cl >>> 0) + (dl >>> 0);
  ch = (ch + dh + ((lo / 0x100000000) | 0)) | 0;
  cl = lo | 0;
  // b = rotr64(b ^ c, 24)
  tl = bl ^ cl;
  let th = bh ^ ch;
  bl = (tl >>> 24) | (th << 8);
  bh = (th >>> 24) | (tl << 8);
  // a = a + b + m[y]
  lo = (al >>> 0) + (bl >>> 0) + (m[y]! >>> 0);
  ah = (ah + bh + m[y + 1]! + ((lo / 0x100000000) | 0)) | 0;
  al = lo | 0;
  // d = rotr64(d ^ a, 16)
  tl = dl ^ al;
  th = dh ^ ah;
  dl = (tl >>> 16) | (th << 16);
  dh = (th >>> 16) | (tl << 16);
  // c = c + d
  lo = (cl >>> 0) + (dl >>> 0);
  ch = (ch + dh + ((lo / 0x100000000) | 0)) | 0;
  cl = lo | 0;
  // b = rotr64(b ^ c, 63) = rotl64(b ^ c, 1)
  tl = bl ^ cl;
  th = bh ^ ch;
  bl = (tl << 1) | (th >>> 31);
  bh = (th << 1) | (tl >>> 31);
  v[a] = al;
  v[a + 1] = ah;
  v[b] = bl;
  v[b + 1] = bh;
  v[c] = cl;
  v[c + 1] = ch;
  v[d] = dl;
  v[d + 1] = dh;
}

/**
 * F(h, m, t, f, rounds) in place on `h` (8 words as 16 halves). `m` is 16 words, `t` 2 words (as halves),
 * `final` the last-block flag.
 */
export function compress(rounds: number, h: Int32Array, m: Int32Array, t: Int32Array, final: boolean): void {
  const v = new Int32Array(32);
  v.set(h, 0);
  v.set(IV, 16);
  v[24]! ^= t[0]!;
  v[25]! ^= t[1]!;
  v[26]! ^= t[2]!;
  v[27]! ^= t[3]!;
  if (final) {
    v[28] = ~v[28]!;
    v[29] = ~v[29]!;
  }
  for (let r = 0; r < rounds; r++) {
    const s = SIGMA[r % 10]!;
    mix(v, m, 0, 8, 16, 24, s[0]!, s[1]!);
    mix(v, m, 2, 10, 18, 26, s[2]!, s[3]!);
    mix(v, m, 4, 12, 20, 28, s[4]!, s[5]!);
    mix(v, m, 6, 14, 22, 30, s[6]!, s[7]!);
    mix(v, m, 0, 10, 20, 30, s[8]!, s[9]!);
    mix(v, m, 2, 12, 22, 24, s[10]!, s[11]!);
    mix(v, m, 4, 14, 16, 26, s[12]!, s[13]!);
    mix(v, m, 6, 8, 18, 28, s[14]!, s[15]!);
  }
  for (let i = 0; i < 16; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 16]!;
}

/** Little-endian 32-bit halves of `count` 64-bit words at `offset`. */
function halves(input: Uint8Array, offset: number, count: number): Int32Array {
  const view = new DataView(input.buffer, input.byteOffset + offset, count * 8);
  const out = new Int32Array(count * 2);
  for (let i = 0; i < count * 2; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}

function rounds(input: Uint8Array): number {
  return ((input[0]! << 24) | (input[1]! << 16) | (input[2]! << 8) | input[3]!) >>> 0;
}

/** 0x09: exactly 213 bytes (rounds ‖ h ‖ m ‖ t ‖ f), f ∈ {0, 1}; one gas per round. */
export const blake2fPrecompile: PurePrecompile = {
  // An input of the wrong length fails anyway; it costs nothing beyond the all-gas failure.
  gas: (input) => (input.length === 213 ? BigInt(rounds(input)) : 0n),
  run: (input) => {
    if (input.length !== 213) return undefined;
    const f = input[212]!;
    if (f > 1) return undefined;
    const h = halves(input, 4, 8);
    compress(rounds(input), h, halves(input, 68, 16), halves(input, 196, 2), f === 1);
    const out = new Uint8Array(64);
    const view = new DataView(out.buffer);
    for (let i = 0; i < 16; i++) view.setInt32(i * 4, h[i]!, true);
    return out;
  },
};
