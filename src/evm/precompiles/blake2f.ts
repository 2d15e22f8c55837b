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
 * F(h, m, t, f, rounds) in place on `h` (8 words as 16 halves). `m` is 16 words, `t` 2 words (as halves),
 * `final` the last-block flag. The 16 state words live in 32 locals and the eight G steps of a round are written
 * out, so the state stays in registers: a round over an Int32Array cost ~470 ns, and a call may ask for 2^32 - 1
 * rounds (stTimeConsuming/CALLBlake2f_MaxRounds).
 */
export function compress(rounds: number, h: Int32Array, m: Int32Array, t: Int32Array, final: boolean): void {
  let v0l = h[0]!,
    v0h = h[1]!;
  let v1l = h[2]!,
    v1h = h[3]!;
  let v2l = h[4]!,
    v2h = h[5]!;
  let v3l = h[6]!,
    v3h = h[7]!;
  let v4l = h[8]!,
    v4h = h[9]!;
  let v5l = h[10]!,
    v5h = h[11]!;
  let v6l = h[12]!,
    v6h = h[13]!;
  let v7l = h[14]!,
    v7h = h[15]!;
  let v8l = IV[0]!,
    v8h = IV[1]!;
  let v9l = IV[2]!,
    v9h = IV[3]!;
  let v10l = IV[4]!,
    v10h = IV[5]!;
  let v11l = IV[6]!,
    v11h = IV[7]!;
  let v12l = IV[8]! ^ t[0]!,
    v12h = IV[9]! ^ t[1]!;
  let v13l = IV[10]! ^ t[2]!,
    v13h = IV[11]! ^ t[3]!;
  let v14l = final ? ~IV[12]! : IV[12]!,
    v14h = final ? ~IV[13]! : IV[13]!;
  let v15l = IV[14]!,
    v15h = IV[15]!;
  let lo: number, tl: number, th: number, x: number;
  for (let r = 0; r < rounds; r++) {
    const s = SIGMA[r % 10]!;
    // G0: words 0, 4, 8, 12
    x = s[0]!;
    lo = (v0l >>> 0) + (v4l >>> 0) + (m[x]! >>> 0);
    v0h = (v0h + v4h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v0l = lo | 0;
    tl = v12l ^ v0l;
    v12l = v12h ^ v0h;
    v12h = tl;
    lo = (v8l >>> 0) + (v12l >>> 0);
    v8h = (v8h + v12h + ((lo / 0x100000000) | 0)) | 0;
    v8l = lo | 0;
    tl = v4l ^ v8l;
    th = v4h ^ v8h;
    v4l = (tl >>> 24) | (th << 8);
    v4h = (th >>> 24) | (tl << 8);
    x = s[1]!;
    lo = (v0l >>> 0) + (v4l >>> 0) + (m[x]! >>> 0);
    v0h = (v0h + v4h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v0l = lo | 0;
    tl = v12l ^ v0l;
    th = v12h ^ v0h;
    v12l = (tl >>> 16) | (th << 16);
    v12h = (th >>> 16) | (tl << 16);
    lo = (v8l >>> 0) + (v12l >>> 0);
    v8h = (v8h + v12h + ((lo / 0x100000000) | 0)) | 0;
    v8l = lo | 0;
    tl = v4l ^ v8l;
    th = v4h ^ v8h;
    v4l = (tl << 1) | (th >>> 31);
    v4h = (th << 1) | (tl >>> 31);

    // G1: words 1, 5, 9, 13
    x = s[2]!;
    lo = (v1l >>> 0) + (v5l >>> 0) + (m[x]! >>> 0);
    v1h = (v1h + v5h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v1l = lo | 0;
    tl = v13l ^ v1l;
    v13l = v13h ^ v1h;
    v13h = tl;
    lo = (v9l >>> 0) + (v13l >>> 0);
    v9h = (v9h + v13h + ((lo / 0x100000000) | 0)) | 0;
    v9l = lo | 0;
    tl = v5l ^ v9l;
    th = v5h ^ v9h;
    v5l = (tl >>> 24) | (th << 8);
    v5h = (th >>> 24) | (tl << 8);
    x = s[3]!;
    lo = (v1l >>> 0) + (v5l >>> 0) + (m[x]! >>> 0);
    v1h = (v1h + v5h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v1l = lo | 0;
    tl = v13l ^ v1l;
    th = v13h ^ v1h;
    v13l = (tl >>> 16) | (th << 16);
    v13h = (th >>> 16) | (tl << 16);
    lo = (v9l >>> 0) + (v13l >>> 0);
    v9h = (v9h + v13h + ((lo / 0x100000000) | 0)) | 0;
    v9l = lo | 0;
    tl = v5l ^ v9l;
    th = v5h ^ v9h;
    v5l = (tl << 1) | (th >>> 31);
    v5h = (th << 1) | (tl >>> 31);

    // G2: words 2, 6, 10, 14
    x = s[4]!;
    lo = (v2l >>> 0) + (v6l >>> 0) + (m[x]! >>> 0);
    v2h = (v2h + v6h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v2l = lo | 0;
    tl = v14l ^ v2l;
    v14l = v14h ^ v2h;
    v14h = tl;
    lo = (v10l >>> 0) + (v14l >>> 0);
    v10h = (v10h + v14h + ((lo / 0x100000000) | 0)) | 0;
    v10l = lo | 0;
    tl = v6l ^ v10l;
    th = v6h ^ v10h;
    v6l = (tl >>> 24) | (th << 8);
    v6h = (th >>> 24) | (tl << 8);
    x = s[5]!;
    lo = (v2l >>> 0) + (v6l >>> 0) + (m[x]! >>> 0);
    v2h = (v2h + v6h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v2l = lo | 0;
    tl = v14l ^ v2l;
    th = v14h ^ v2h;
    v14l = (tl >>> 16) | (th << 16);
    v14h = (th >>> 16) | (tl << 16);
    lo = (v10l >>> 0) + (v14l >>> 0);
    v10h = (v10h + v14h + ((lo / 0x100000000) | 0)) | 0;
    v10l = lo | 0;
    tl = v6l ^ v10l;
    th = v6h ^ v10h;
    v6l = (tl << 1) | (th >>> 31);
    v6h = (th << 1) | (tl >>> 31);

    // G3: words 3, 7, 11, 15
    x = s[6]!;
    lo = (v3l >>> 0) + (v7l >>> 0) + (m[x]! >>> 0);
    v3h = (v3h + v7h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v3l = lo | 0;
    tl = v15l ^ v3l;
    v15l = v15h ^ v3h;
    v15h = tl;
    lo = (v11l >>> 0) + (v15l >>> 0);
    v11h = (v11h + v15h + ((lo / 0x100000000) | 0)) | 0;
    v11l = lo | 0;
    tl = v7l ^ v11l;
    th = v7h ^ v11h;
    v7l = (tl >>> 24) | (th << 8);
    v7h = (th >>> 24) | (tl << 8);
    x = s[7]!;
    lo = (v3l >>> 0) + (v7l >>> 0) + (m[x]! >>> 0);
    v3h = (v3h + v7h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v3l = lo | 0;
    tl = v15l ^ v3l;
    th = v15h ^ v3h;
    v15l = (tl >>> 16) | (th << 16);
    v15h = (th >>> 16) | (tl << 16);
    lo = (v11l >>> 0) + (v15l >>> 0);
    v11h = (v11h + v15h + ((lo / 0x100000000) | 0)) | 0;
    v11l = lo | 0;
    tl = v7l ^ v11l;
    th = v7h ^ v11h;
    v7l = (tl << 1) | (th >>> 31);
    v7h = (th << 1) | (tl >>> 31);

    // G4: words 0, 5, 10, 15
    x = s[8]!;
    lo = (v0l >>> 0) + (v5l >>> 0) + (m[x]! >>> 0);
    v0h = (v0h + v5h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v0l = lo | 0;
    tl = v15l ^ v0l;
    v15l = v15h ^ v0h;
    v15h = tl;
    lo = (v10l >>> 0) + (v15l >>> 0);
    v10h = (v10h + v15h + ((lo / 0x100000000) | 0)) | 0;
    v10l = lo | 0;
    tl = v5l ^ v10l;
    th = v5h ^ v10h;
    v5l = (tl >>> 24) | (th << 8);
    v5h = (th >>> 24) | (tl << 8);
    x = s[9]!;
    lo = (v0l >>> 0) + (v5l >>> 0) + (m[x]! >>> 0);
    v0h = (v0h + v5h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v0l = lo | 0;
    tl = v15l ^ v0l;
    th = v15h ^ v0h;
    v15l = (tl >>> 16) | (th << 16);
    v15h = (th >>> 16) | (tl << 16);
    lo = (v10l >>> 0) + (v15l >>> 0);
    v10h = (v10h + v15h + ((lo / 0x100000000) | 0)) | 0;
    v10l = lo | 0;
    tl = v5l ^ v10l;
    th = v5h ^ v10h;
    v5l = (tl << 1) | (th >>> 31);
    v5h = (th << 1) | (tl >>> 31);

    // G5: words 1, 6, 11, 12
    x = s[10]!;
    lo = (v1l >>> 0) + (v6l >>> 0) + (m[x]! >>> 0);
    v1h = (v1h + v6h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v1l = lo | 0;
    tl = v12l ^ v1l;
    v12l = v12h ^ v1h;
    v12h = tl;
    lo = (v11l >>> 0) + (v12l >>> 0);
    v11h = (v11h + v12h + ((lo / 0x100000000) | 0)) | 0;
    v11l = lo | 0;
    tl = v6l ^ v11l;
    th = v6h ^ v11h;
    v6l = (tl >>> 24) | (th << 8);
    v6h = (th >>> 24) | (tl << 8);
    x = s[11]!;
    lo = (v1l >>> 0) + (v6l >>> 0) + (m[x]! >>> 0);
    v1h = (v1h + v6h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v1l = lo | 0;
    tl = v12l ^ v1l;
    th = v12h ^ v1h;
    v12l = (tl >>> 16) | (th << 16);
    v12h = (th >>> 16) | (tl << 16);
    lo = (v11l >>> 0) + (v12l >>> 0);
    v11h = (v11h + v12h + ((lo / 0x100000000) | 0)) | 0;
    v11l = lo | 0;
    tl = v6l ^ v11l;
    th = v6h ^ v11h;
    v6l = (tl << 1) | (th >>> 31);
    v6h = (th << 1) | (tl >>> 31);

    // G6: words 2, 7, 8, 13
    x = s[12]!;
    lo = (v2l >>> 0) + (v7l >>> 0) + (m[x]! >>> 0);
    v2h = (v2h + v7h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v2l = lo | 0;
    tl = v13l ^ v2l;
    v13l = v13h ^ v2h;
    v13h = tl;
    lo = (v8l >>> 0) + (v13l >>> 0);
    v8h = (v8h + v13h + ((lo / 0x100000000) | 0)) | 0;
    v8l = lo | 0;
    tl = v7l ^ v8l;
    th = v7h ^ v8h;
    v7l = (tl >>> 24) | (th << 8);
    v7h = (th >>> 24) | (tl << 8);
    x = s[13]!;
    lo = (v2l >>> 0) + (v7l >>> 0) + (m[x]! >>> 0);
    v2h = (v2h + v7h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v2l = lo | 0;
    tl = v13l ^ v2l;
    th = v13h ^ v2h;
    v13l = (tl >>> 16) | (th << 16);
    v13h = (th >>> 16) | (tl << 16);
    lo = (v8l >>> 0) + (v13l >>> 0);
    v8h = (v8h + v13h + ((lo / 0x100000000) | 0)) | 0;
    v8l = lo | 0;
    tl = v7l ^ v8l;
    th = v7h ^ v8h;
    v7l = (tl << 1) | (th >>> 31);
    v7h = (th << 1) | (tl >>> 31);

    // G7: words 3, 4, 9, 14
    x = s[14]!;
    lo = (v3l >>> 0) + (v4l >>> 0) + (m[x]! >>> 0);
    v3h = (v3h + v4h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v3l = lo | 0;
    tl = v14l ^ v3l;
    v14l = v14h ^ v3h;
    v14h = tl;
    lo = (v9l >>> 0) + (v14l >>> 0);
    v9h = (v9h + v14h + ((lo / 0x100000000) | 0)) | 0;
    v9l = lo | 0;
    tl = v4l ^ v9l;
    th = v4h ^ v9h;
    v4l = (tl >>> 24) | (th << 8);
    v4h = (th >>> 24) | (tl << 8);
    x = s[15]!;
    lo = (v3l >>> 0) + (v4l >>> 0) + (m[x]! >>> 0);
    v3h = (v3h + v4h + m[x + 1]! + ((lo / 0x100000000) | 0)) | 0;
    v3l = lo | 0;
    tl = v14l ^ v3l;
    th = v14h ^ v3h;
    v14l = (tl >>> 16) | (th << 16);
    v14h = (th >>> 16) | (tl << 16);
    lo = (v9l >>> 0) + (v14l >>> 0);
    v9h = (v9h + v14h + ((lo / 0x100000000) | 0)) | 0;
    v9l = lo | 0;
    tl = v4l ^ v9l;
    th = v4h ^ v9h;
    v4l = (tl << 1) | (th >>> 31);
    v4h = (th << 1) | (tl >>> 31);
  }
  h[0] = h[0]! ^ v0l ^ v8l;
  h[1] = h[1]! ^ v0h ^ v8h;
  h[2] = h[2]! ^ v1l ^ v9l;
  h[3] = h[3]! ^ v1h ^ v9h;
  h[4] = h[4]! ^ v2l ^ v10l;
  h[5] = h[5]! ^ v2h ^ v10h;
  h[6] = h[6]! ^ v3l ^ v11l;
  h[7] = h[7]! ^ v3h ^ v11h;
  h[8] = h[8]! ^ v4l ^ v12l;
  h[9] = h[9]! ^ v4h ^ v12h;
  h[10] = h[10]! ^ v5l ^ v13l;
  h[11] = h[11]! ^ v5h ^ v13h;
  h[12] = h[12]! ^ v6l ^ v14l;
  h[13] = h[13]! ^ v6h ^ v14h;
  h[14] = h[14]! ^ v7l ^ v15l;
  h[15] = h[15]! ^ v7h ^ v15h;
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
