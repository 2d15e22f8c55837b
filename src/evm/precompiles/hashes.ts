// 0x02 sha256, 0x03 ripemd160, 0x04 identity. OpenSSL through node:crypto; RIPEMD-160 falls back to
// @noble/hashes when the OpenSSL build lacks it (some distributions move it to the legacy provider).
import { createHash } from 'node:crypto';
import { ripemd160 as nobleRipemd160 } from '@noble/hashes/legacy.js';
import type { PurePrecompile } from '../types.ts';
import { words } from './bytes.ts';

/** A one-shot hash function. */
export type HashFn = (data: Uint8Array) => Uint8Array;

/** SHA-256 through OpenSSL. */
export const sha256: HashFn = (data) => createHash('sha256').update(data).digest();

/** RIPEMD-160 through OpenSSL. */
export const opensslRipemd160: HashFn = (data) => createHash('ripemd160').update(data).digest();

/** RIPEMD-160 in JavaScript (@noble/hashes). */
export const jsRipemd160: HashFn = (data) => nobleRipemd160(data);

const EMPTY_RIPEMD160 = '9c1185a5c5e9fc54612808977ee8f548b2258d31';

/** OpenSSL's RIPEMD-160 when it is available and passes the empty-string vector, else undefined. */
export function loadOpensslRipemd160(): HashFn | undefined {
  try {
    if (Buffer.from(opensslRipemd160(new Uint8Array(0))).toString('hex') === EMPTY_RIPEMD160) return opensslRipemd160;
  } catch {
    // OpenSSL without RIPEMD-160: the unsupported-digest error lands here.
  }
  return undefined;
}

/** 0x02: 60 + 12 per word. */
export const sha256Precompile: PurePrecompile = {
  gas: (input) => 60n + 12n * words(input.length),
  run: (input) => sha256(input),
};

/** 0x03: 600 + 120 per word; the 20-byte digest left-padded to 32 bytes. */
export function ripemd160Precompile(hash: HashFn): PurePrecompile {
  return {
    gas: (input) => 600n + 120n * words(input.length),
    run: (input) => {
      const out = new Uint8Array(32);
      out.set(hash(input), 12);
      return out;
    },
  };
}

/** 0x04: 15 + 3 per word; a copy of the input (the caller may keep it while memory changes). */
export const identityPrecompile: PurePrecompile = {
  gas: (input) => 15n + 3n * words(input.length),
  run: (input) => input.slice(),
};
