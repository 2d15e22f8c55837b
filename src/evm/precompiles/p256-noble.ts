// P256VERIFY's curve arithmetic on @noble/curves (imported only when the precompiles load: its NIST module adds
// to the startup of a process that never calls 0x100 otherwise). No native or wasm P-256 verifies a raw digest:
// node:crypto hashes the message itself.
import { p256 } from '@noble/curves/nist.js';
import type { P256VerifyFn } from './p256verify.ts';

// The digest is given (no prehash) and a high s is valid: EIP-7951 leaves malleability to the caller.
const OPTS = { prehash: false, lowS: false, format: 'compact' } as const;

/** ECDSA verification of a digest over P-256 (@noble/curves); an off-curve key is a false, never a throw. */
export const nobleP256Verify: P256VerifyFn = (hash, r, s, publicKey) => {
  const sig = new Uint8Array(64);
  sig.set(r, 0);
  sig.set(s, 32);
  try {
    return p256.verify(sig, hash, publicKey, OPTS);
  } catch {
    return false;
  }
};
