// Code analysis: computed once per code hash (evmone's baseline interpreter does the same; ethereumjs rescans
// jump destinations on every call, a large share of a cached call's time). It holds the valid jump destinations and the
// PUSH immediates decoded to words lazily, so a cached contract's PUSH is an array load, not a BigInt parse.

import { LRUCache } from 'lru-cache';

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

/**
 * Bytes an analysis of `n` bytes of code holds, estimated: the jumpdest bytes and PUSH indexes (5 bytes a code byte),
 * the PUSH values once decoded (a slot and a bigint, at most one PUSH per two code bytes) and the objects.
 */
export function analysisBytes(a: CodeAnalysis): number {
  return 256 + a.jumpdests.byteLength + a.pushIndex.byteLength + a.pushValues.length * 40;
}

/** Bound without a budget: a few hundred contracts' worth (a 24 KiB contract's analysis is ~200 KB). */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Analyses keyed by code hash. Content-addressed and immutable, so one cache serves every WorldState and every
 * node in the process without sharing any chain state. Bounded in bytes (the least recently used go first), so a
 * stream of unique or large contracts cannot grow it without limit.
 */
export class AnalysisCache {
  private map: LRUCache<string, CodeAnalysis>;
  /**
   * The same analyses by the hash array itself. State readers memoise accounts, so a contract called again hands
   * the same array, and one identity lookup replaces building a string key (~0.3 us a call). Hash arrays are never
   * written after they are made, so an array names one hash for its whole life; entries go with their arrays.
   */
  private byArray = new WeakMap<Uint8Array, CodeAnalysis>();

  constructor(maxBytes = DEFAULT_MAX_BYTES) {
    this.map = AnalysisCache.lru(maxBytes);
  }

  private static lru(maxBytes: number): LRUCache<string, CodeAnalysis> {
    return new LRUCache({ maxSize: maxBytes, sizeCalculation: analysisBytes });
  }

  /**
   * Sets the byte bound (the node's [cache] budget share), starting empty. The identity map starts over too, so
   * nothing outlives the bound through it: an analysis found by array stays reachable only while its hash array is.
   */
  setMaxBytes(maxBytes: number): void {
    this.map = AnalysisCache.lru(maxBytes);
    this.byArray = new WeakMap();
  }

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
      // An analysis larger than the whole bound is used once and not kept.
      if (analysisBytes(a) <= this.map.maxSize) this.map.set(key, a);
    }
    return a;
  }

  /** Number of cached analyses. */
  get size(): number {
    return this.map.size;
  }

  /** Estimated bytes of the cached analyses (those only the identity map still reaches are not counted). */
  get bytes(): number {
    return this.map.calculatedSize;
  }
}

/** The process-wide cache (see AnalysisCache for why sharing is safe). */
export const analysisCache = new AnalysisCache();
