// 0x01 ecrecover. The native libsecp256k1 add-on recovers many times faster than @noble/curves
// (ecrecover-noble.ts), which is the fallback when the add-on cannot load. Any invalid input gives an empty output
// (not a failure): 3000 gas either way.
import { createRequire } from 'node:module';
import type { PurePrecompile } from '../types.ts';
import { allZero, lessThan, padded } from './bytes.ts';
import type { HashFn } from './hashes.ts';

/** Recovers the 65-byte uncompressed public key (0x04 ‖ x ‖ y), or undefined when there is none. */
export type RecoverFn = (hash: Uint8Array, r: Uint8Array, s: Uint8Array, recid: number) => Uint8Array | undefined;

// secp256k1 group order n, big-endian.
const N = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
const EMPTY = new Uint8Array(0);

/**
 * The native recoverer, loaded through `secp256k1/bindings.js` directly: the package's index silently falls
 * back to the `elliptic` JS implementation when the add-on is missing, which would hide a broken install.
 * Returns undefined when the add-on cannot load.
 */
export function loadNativeRecover(): RecoverFn | undefined {
  let lib: { ecdsaRecover(sig: Uint8Array, recid: number, msg: Uint8Array, compressed: boolean): Uint8Array };
  try {
    lib = createRequire(import.meta.url)('secp256k1/bindings.js');
  } catch {
    return undefined;
  }
  const sig = new Uint8Array(64);
  return (hash, r, s, recid) => {
    sig.set(r, 0);
    sig.set(s, 32);
    try {
      return lib.ecdsaRecover(sig, recid, hash, false);
    } catch {
      // libsecp256k1 reports "no point for this r" and similar as an exception: no address.
      return undefined;
    }
  };
}

/** 0x01 over a recoverer and keccak256. */
export function ecrecoverPrecompile(recover: RecoverFn, keccak256: HashFn): PurePrecompile {
  return {
    gas: () => 3000n,
    run: (input) => {
      const data = padded(input, 0, 128);
      // v is a full 32-byte word that must equal 27 or 28.
      const v = data[63]!;
      if (!allZero(data, 32, 63) || (v !== 27 && v !== 28)) return EMPTY;
      const r = data.subarray(64, 96);
      const s = data.subarray(96, 128);
      if (allZero(r) || allZero(s) || !lessThan(r, N) || !lessThan(s, N)) return EMPTY;
      const pub = recover(data.subarray(0, 32), r, s, v - 27);
      if (pub === undefined) return EMPTY;
      const out = new Uint8Array(32);
      out.set(keccak256(pub.subarray(1)).subarray(12), 12);
      return out;
    },
  };
}
