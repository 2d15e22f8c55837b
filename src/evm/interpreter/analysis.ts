// Code analysis: computed once per code hash (evmone's baseline interpreter does the same; ethereumjs rescans
// jump destinations on every call, a large share of a cached call's time). It holds the valid jump destinations and the
// PUSH immediates decoded to words lazily, so a cached contract's PUSH is an array load, not a BigInt parse.

/** What the interpreter needs to know about a code before running it. */
export interface CodeAnalysis {
  /** 1 at every JUMPDEST that is not inside PUSH data. */
  readonly jumpdests: Uint8Array;
  /** For each PUSH1..PUSH32 opcode position, its index into pushValues (other positions unused). */
  readonly pushIndex: Int32Array;
  /** PUSH immediates as words; undefined until first decoded (an identity test, where -1n took a BigInt compare). */
  readonly pushValues: Array<bigint | undefined>;
}

/** Scans `code` for jump destinations and PUSH positions. */
export function analyze(code: Uint8Array): CodeAnalysis {
  const n = code.length;
  const jumpdests = new Uint8Array(n);
  const pushIndex = new Int32Array(n);
  let pushes = 0;
  for (let pc = 0; pc < n; pc++) {
    const op = code[pc]!;
    if (op === 0x5b) jumpdests[pc] = 1;
    else if (op >= 0x60 && op <= 0x7f) {
      pushIndex[pc] = pushes++;
      pc += op - 0x5f;
    }
  }
  const pushValues = new Array<bigint | undefined>(pushes).fill(undefined);
  return { jumpdests, pushIndex, pushValues };
}

/** Decodes the immediate of the PUSHn at `pc` (zero-padded past the end of code, as the EVM reads it). */
export function readPush(code: Uint8Array, pc: number, n: number): bigint {
  const start = pc + 1;
  const end = start + n;
  if (n <= 6 && end <= code.length) {
    let v = 0;
    for (let i = start; i < end; i++) v = v * 256 + code[i]!;
    return BigInt(v);
  }
  let v = 0n;
  for (let i = start; i < end; i++) v = (v << 8n) | BigInt(i < code.length ? code[i]! : 0);
  return v;
}

/** Bounded so a stream of unique contracts cannot grow it without limit. */
const MAX_ENTRIES = 2048;

/**
 * Analyses keyed by code hash. Content-addressed and immutable, so one cache serves every WorldState and every
 * node in the process without sharing any chain state. Evicts the oldest insertion when full.
 */
export class AnalysisCache {
  private readonly map = new Map<string, CodeAnalysis>();
  /**
   * The same analyses by the hash array itself. State readers memoise accounts, so a contract called again hands
   * the same array, and one identity lookup replaces building a string key (~0.3 us a call). Hash arrays are never
   * written after they are made, so an array names one hash for its whole life; entries go with their arrays.
   */
  private readonly byArray = new WeakMap<Uint8Array, CodeAnalysis>();

  /** The analysis of `code`, whose keccak is `codeHash`. */
  get(codeHash: Uint8Array, code: Uint8Array): CodeAnalysis {
    let a = this.byArray.get(codeHash);
    if (a !== undefined) return a;
    a = this.byKey(codeHash, code);
    this.byArray.set(codeHash, a);
    return a;
  }

  private byKey(codeHash: Uint8Array, code: Uint8Array): CodeAnalysis {
    const key = Buffer.from(codeHash.buffer, codeHash.byteOffset, 32).toString('latin1');
    let a = this.map.get(key);
    if (a === undefined) {
      a = analyze(code);
      if (this.map.size >= MAX_ENTRIES) {
        const first = this.map.keys().next().value as string;
        this.map.delete(first);
      }
      this.map.set(key, a);
    }
    return a;
  }

  /** Number of cached analyses. */
  get size(): number {
    return this.map.size;
  }
}

/** The process-wide cache (see AnalysisCache for why sharing is safe). */
export const analysisCache = new AnalysisCache();
