// 0x09 blake2f (EIP-152): BLAKE2b's compression function F (RFC 7693 §3.2) with a caller-chosen round count, as a
// WebAssembly function with 64-bit words, emitted byte by byte here. JavaScript has no 64-bit integer but BigInt, which
// allocates; over 32-bit halves a round still cost ~220 ns, and EIP-152 lets a call ask for 2^32 - 1 rounds
// (stTimeConsuming/CALLBlake2f_MaxRounds). WebAssembly's i64 add, xor and rotate are single machine instructions, and
// the state and message live in 32 i64 locals. No maintained package exposes F with a round count (REFERENCE-ENGINE.md
// §7), so the module is ours: ~6 kB, compiled once per process on first use.
import type { PurePrecompile } from '../types.ts';

/** BLAKE2b's initialisation vector (RFC 7693 §2.6). */
export const BLAKE2B_IV: readonly bigint[] = [
  0x6a09e667f3bcc908n,
  0xbb67ae8584caa73bn,
  0x3c6ef372fe94f82bn,
  0xa54ff53a5f1d36f1n,
  0x510e527fade682d1n,
  0x9b05688c2b3e6c1fn,
  0x1f83d9abfb41bd6bn,
  0x5be0cd19137e2179n,
];

/** The message schedule: round r reads the message words in row r mod 10's order. */
export const BLAKE2B_SIGMA: readonly (readonly number[])[] = [
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
];

/** The eight G steps of a round: the state words (a, b, c, d) each one mixes; step i takes message words 2i, 2i+1. */
const G_WORDS = [
  [0, 4, 8, 12],
  [1, 5, 9, 13],
  [2, 6, 10, 14],
  [3, 7, 11, 15],
  [0, 5, 10, 15],
  [1, 6, 11, 12],
  [2, 7, 8, 13],
  [3, 4, 9, 14],
];

/**
 * Where F's operands sit in the module's memory: the precompile's input bytes 4..212 (h ‖ m ‖ t) copied as they are,
 * then the working vector v between the calls of one F.
 */
const LAYOUT = { h: 0, m: 64, t: 192, end: 208, v: 208 } as const;

/**
 * Rounds per call of `run`. V8 first compiles a WebAssembly function with its baseline compiler (Liftoff, ~13× slower
 * here) and swaps in the optimised code only between calls, so one call running 2^32 - 1 rounds would run them all
 * in the baseline code. A multiple of 10, so that every call but the last ends where the message schedule restarts.
 */
const CHUNK = 40_960;

// WebAssembly opcodes and type codes used below (WebAssembly core spec §5.4).
const enum W {
  Block = 0x02,
  Loop = 0x03,
  End = 0x0b,
  Br = 0x0c,
  BrIf = 0x0d,
  LocalGet = 0x20,
  LocalSet = 0x21,
  I64Load = 0x29,
  I64Store = 0x37,
  I32Const = 0x41,
  I64Const = 0x42,
  I32Eqz = 0x45,
  I32Sub = 0x6b,
  I64Add = 0x7c,
  I64Sub = 0x7d,
  I64Xor = 0x85,
  I64Rotr = 0x8a,
  I64ExtendI32U = 0xad,
  I32 = 0x7f,
  I64 = 0x7e,
  Void = 0x40,
  FuncType = 0x60,
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

/** A section: its id, then its content's length. */
function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...Buffer.from(s, 'latin1')];
}

/** A function body: its local declarations (groups of [count, type]) and its code. */
function funcBody(locals: [number, number][], code: number[]): number[] {
  const body = [...uleb(locals.length), ...locals.flatMap(([n, t]) => [...uleb(n), t]), ...code, W.End];
  return [...uleb(body.length), ...body];
}

/** Pushes the i64 at a constant address (memarg: log2 alignment 3, offset). */
function load(addr: number): number[] {
  return [W.I32Const, 0, W.I64Load, 3, ...uleb(addr)];
}

/** Stores the i64 that `value` pushes at a constant address. */
function store(addr: number, value: number[]): number[] {
  return [W.I32Const, 0, ...value, W.I64Store, 3, ...uleb(addr)];
}

const i64 = (x: bigint) => [W.I64Const, ...sleb(BigInt.asIntN(64, x))];

/** init(final): v = h ‖ IV, with t folded into v12, v13 and v14 inverted for the last block. */
function initBody(): number[] {
  const out: number[] = [];
  for (let i = 0; i < 8; i++) out.push(...store(LAYOUT.v + 8 * i, load(LAYOUT.h + 8 * i)));
  for (let i = 0; i < 8; i++) {
    let value = i64(BLAKE2B_IV[i]!);
    if (i === 4 || i === 5) value = [...value, ...load(LAYOUT.t + 8 * (i - 4)), W.I64Xor];
    // final ∈ {0, 1}: 0 - final is 0 or all ones.
    if (i === 6) value = [...value, ...i64(0n), W.LocalGet, 0, W.I64ExtendI32U, W.I64Sub, W.I64Xor];
    out.push(...store(LAYOUT.v + 64 + 8 * i, value));
  }
  return out;
}

// run(n)'s locals: 0 the rounds left (i32, counts down), then the 16 words of v, then the 16 message words.
const N = 0;
const v = (i: number) => 1 + i;
const m = (i: number) => 17 + i;

/** G (RFC 7693 §3.1) on state words a, b, c, d with message words x, y. */
function g(a: number, b: number, c: number, d: number, x: number, y: number): number[] {
  const out: number[] = [];
  const add3 = (dst: number, p: number, q: number) =>
    out.push(W.LocalGet, v(dst), W.LocalGet, v(p), W.I64Add, W.LocalGet, m(q), W.I64Add, W.LocalSet, v(dst));
  const add2 = (dst: number, p: number) => out.push(W.LocalGet, v(dst), W.LocalGet, v(p), W.I64Add, W.LocalSet, v(dst));
  const xorRot = (dst: number, p: number, bits: number) =>
    out.push(W.LocalGet, v(dst), W.LocalGet, v(p), W.I64Xor, ...i64(BigInt(bits)), W.I64Rotr, W.LocalSet, v(dst));
  add3(a, b, x);
  xorRot(d, a, 32);
  add2(c, d);
  xorRot(b, c, 24);
  add3(a, b, y);
  xorRot(d, a, 16);
  add2(c, d);
  xorRot(b, c, 63);
  return out;
}

/** run(n): n rounds on v, starting at the schedule's first row; v and m are held in locals for the call. */
function runBody(): number[] {
  const out: number[] = [];
  for (let i = 0; i < 16; i++) out.push(...load(LAYOUT.v + 8 * i), W.LocalSet, v(i));
  for (let i = 0; i < 16; i++) out.push(...load(LAYOUT.m + 8 * i), W.LocalSet, m(i));
  // block { loop { ten rounds, each preceded by "if n == 0 leave the block" } }: the message schedule repeats every
  // ten rounds, so the loop body is ten rounds written out with their message words as constants.
  out.push(W.Block, W.Void, W.Loop, W.Void);
  for (const s of BLAKE2B_SIGMA) {
    out.push(W.LocalGet, N, W.I32Eqz, W.BrIf, 1);
    G_WORDS.forEach(([a, b, c, d], i) => out.push(...g(a!, b!, c!, d!, s[2 * i]!, s[2 * i + 1]!)));
    out.push(W.LocalGet, N, W.I32Const, 1, W.I32Sub, W.LocalSet, N);
  }
  out.push(W.Br, 0, W.End, W.End);
  for (let i = 0; i < 16; i++) out.push(...store(LAYOUT.v + 8 * i, [W.LocalGet, v(i)]));
  return out;
}

/** finish(): h ^= v[0..8] ^ v[8..16]. */
function finishBody(): number[] {
  const out: number[] = [];
  for (let i = 0; i < 8; i++) {
    const value = [...load(LAYOUT.h + 8 * i), ...load(LAYOUT.v + 8 * i), W.I64Xor, ...load(LAYOUT.v + 64 + 8 * i)];
    out.push(...store(LAYOUT.h + 8 * i, [...value, W.I64Xor]));
  }
  return out;
}

/** The module's bytes: one page of memory, init(final: i32), run(rounds: i32) and finish(), all exported. */
function blake2fModuleBytes(): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [2, W.FuncType, 1, W.I32, 0, W.FuncType, 0, 0]),
    ...section(3, [3, 0, 0, 1]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [
      4,
      ...name('memory'),
      0x02,
      0,
      ...name('init'),
      0x00,
      0,
      ...name('run'),
      0x00,
      1,
      ...name('finish'),
      0x00,
      2,
    ]),
    ...section(10, [
      3,
      ...funcBody([], initBody()),
      ...funcBody([[32, W.I64]], runBody()),
      ...funcBody([], finishBody()),
    ]),
  ]);
}

/** The module's memory (the operands) and its three steps of F. */
interface Blake2fWasm {
  memory: Uint8Array;
  init(final: number): void;
  run(rounds: number): void;
  finish(): void;
}

let wasm: Blake2fWasm | undefined;

/** Compiles and instantiates the module once (synchronously: it is small). */
function instance(): Blake2fWasm {
  if (wasm !== undefined) return wasm;
  const ex = new WebAssembly.Instance(new WebAssembly.Module(blake2fModuleBytes()), {}).exports as unknown as Omit<
    Blake2fWasm,
    'memory'
  > & { memory: WebAssembly.Memory };
  wasm = { memory: new Uint8Array(ex.memory.buffer, 0, LAYOUT.end), init: ex.init, run: ex.run, finish: ex.finish };
  return wasm;
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
    const w = instance();
    // h ‖ m ‖ t are little-endian words in the input, as WebAssembly reads them: copied as they are.
    w.memory.set(input.subarray(4, 4 + LAYOUT.end));
    w.init(f);
    let left = rounds(input);
    for (; left > CHUNK; left -= CHUNK) w.run(CHUNK);
    w.run(left);
    w.finish();
    return w.memory.slice(LAYOUT.h, LAYOUT.h + 64);
  },
};
