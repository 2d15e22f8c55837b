// A stop-gap table of the simplest precompiles (0x01-0x05) until src/evm/precompiles/ lands from its branch.
import { createHash } from 'node:crypto';
import secp256k1 from 'secp256k1/bindings.js';
import type { Address, Fork, Precompile } from './types.ts';
import { bytesToBigint, EMPTY_BYTES } from './bytes.ts';
import { keccak256 } from './keccak.ts';

function words(n: number): bigint {
  return BigInt(Math.ceil(n / 32));
}

function padded(input: Uint8Array, len: number): Uint8Array {
  if (input.length >= len) return input;
  const out = new Uint8Array(len);
  out.set(input);
  return out;
}

const SECP256K1N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const ecrecover: Precompile = {
  gas: () => 3000n,
  run(input) {
    const d = padded(input, 128);
    const v = bytesToBigint(d.subarray(32, 64));
    const r = bytesToBigint(d.subarray(64, 96));
    const s = bytesToBigint(d.subarray(96, 128));
    if ((v !== 27n && v !== 28n) || r === 0n || r >= SECP256K1N || s === 0n || s >= SECP256K1N) return EMPTY_BYTES;
    try {
      const pub = secp256k1.ecdsaRecover(d.slice(64, 128), Number(v - 27n), d.slice(0, 32), false);
      const out = new Uint8Array(32);
      out.set(keccak256(pub.subarray(1)).subarray(12), 12);
      return out;
    } catch {
      return EMPTY_BYTES;
    }
  },
};

const sha256: Precompile = {
  gas: (input) => 60n + 12n * words(input.length),
  run: (input) => new Uint8Array(createHash('sha256').update(input).digest()),
};

const ripemd160: Precompile = {
  gas: (input) => 600n + 120n * words(input.length),
  run(input) {
    const out = new Uint8Array(32);
    out.set(createHash('ripemd160').update(input).digest(), 12);
    return out;
  },
};

const identity: Precompile = {
  gas: (input) => 15n + 3n * words(input.length),
  run: (input) => input.slice(),
};

function modexpLengths(input: Uint8Array): [bigint, bigint, bigint] {
  const h = padded(input.subarray(0, 96), 96);
  return [bytesToBigint(h.subarray(0, 32)), bytesToBigint(h.subarray(32, 64)), bytesToBigint(h.subarray(64, 96))];
}

function slice(input: Uint8Array, start: bigint, len: bigint): Uint8Array {
  const out = new Uint8Array(Number(len));
  if (start < BigInt(input.length)) {
    const s = Number(start);
    out.set(input.subarray(s, Math.min(input.length, s + Number(len))));
  }
  return out;
}

const modexp: Precompile = {
  gas(input) {
    const [bl, el, ml] = modexpLengths(input);
    const maxLen = bl > ml ? bl : ml;
    const w = (maxLen + 7n) / 8n;
    const mult = w * w;
    let iter = 0n;
    const eHead = el > 32n ? 32n : el;
    const e = el === 0n ? 0n : bytesToBigint(slice(input, 96n + bl, eHead));
    const bits = e === 0n ? 0n : BigInt(e.toString(2).length - 1);
    if (el <= 32n) iter = bits;
    else iter = 8n * (el - 32n) + bits;
    if (iter < 1n) iter = 1n;
    const g = (mult * iter) / 3n;
    return g < 200n ? 200n : g;
  },
  run(input) {
    const [bl, el, ml] = modexpLengths(input);
    if (ml === 0n) return EMPTY_BYTES;
    const b = bytesToBigint(slice(input, 96n, bl));
    const e = bytesToBigint(slice(input, 96n + bl, el));
    const m = bytesToBigint(slice(input, 96n + bl + el, ml));
    let r = 0n;
    if (m !== 0n) {
      r = 1n % m;
      let base = b % m;
      let x = e;
      while (x > 0n) {
        if (x & 1n) r = (r * base) % m;
        base = (base * base) % m;
        x >>= 1n;
      }
    }
    const out = new Uint8Array(Number(ml));
    let hex = r.toString(16);
    if (hex.length % 2) hex = '0' + hex;
    const rb = Buffer.from(hex === '00' ? '' : hex, 'hex');
    out.set(rb, out.length - rb.length);
    return out;
  },
};

/** The interim table (Cancun and Prague alike). */
export function interimPrecompiles(_fork: Fork): ReadonlyMap<Address, Precompile> {
  return new Map<Address, Precompile>([
    [1n, ecrecover],
    [2n, sha256],
    [3n, ripemd160],
    [4n, identity],
    [5n, modexp],
  ]);
}
