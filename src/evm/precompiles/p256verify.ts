// 0x100 P256VERIFY (EIP-7951, Osaka): ECDSA verification over secp256r1 (NIST P-256) of a 32-byte digest. The
// checks the EIP lists are made here, on the input bytes; the curve arithmetic is the backend's (p256-noble.ts).
// Any failed check or signature gives an empty output, not a failure: 6900 gas either way, as geth.
import type { PurePrecompile } from '../types.ts';
import { allZero, lessThan } from './bytes.ts';

/** Verifies an ECDSA signature (r, s) of `hash` under the public key 0x04 ‖ x ‖ y (65 bytes, already range-checked). */
export type P256VerifyFn = (hash: Uint8Array, r: Uint8Array, s: Uint8Array, publicKey: Uint8Array) => boolean;

/** EIP-7951's price (raised from RIP-7212's 3450). */
export const P256VERIFY_GAS = 6900n;
/** The only input length the precompile accepts: hash ‖ r ‖ s ‖ qx ‖ qy. */
export const P256VERIFY_INPUT_LENGTH = 160;

// secp256r1's group order n and field prime p, big-endian.
const N = Buffer.from('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', 'hex');
const P = Buffer.from('ffffffff00000001000000000000000000000000ffffffffffffffffffffffff', 'hex');
const EMPTY = new Uint8Array(0);
const ONE = new Uint8Array(32);
ONE[31] = 1;

/** 0x100 over a verifier. */
export function p256VerifyPrecompile(verify: P256VerifyFn): PurePrecompile {
  return {
    gas: () => P256VERIFY_GAS,
    run: (input) => {
      if (input.length !== P256VERIFY_INPUT_LENGTH) return EMPTY;
      const r = input.subarray(32, 64);
      const s = input.subarray(64, 96);
      const qx = input.subarray(96, 128);
      const qy = input.subarray(128, 160);
      // 0 < r < n and 0 < s < n; qx and qy field elements; (0, 0) encodes the point at infinity.
      if (allZero(r) || allZero(s) || !lessThan(r, N) || !lessThan(s, N)) return EMPTY;
      if (!lessThan(qx, P) || !lessThan(qy, P) || (allZero(qx) && allZero(qy))) return EMPTY;
      const publicKey = new Uint8Array(65);
      publicKey[0] = 0x04;
      publicKey.set(input.subarray(96, 160), 1);
      // The backend checks the point is on the curve, and R'.x mod n = r with R' = (h·G + r·Q) / s not at infinity.
      return verify(input.subarray(0, 32), r, s, publicKey) ? ONE.slice() : EMPTY;
    },
  };
}
