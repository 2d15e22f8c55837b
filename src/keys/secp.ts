// secp256k1 key helpers on the native library.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '../primitives/secp256k1.ts';
import { keccak256 } from '../primitives/hash.ts';

/** The 20-byte Ethereum address of a private key. */
export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  const pub = secp256k1().publicKeyCreate(privateKey, false);
  return keccak256(pub.slice(1)).slice(12);
}

/** A fresh random valid private key. */
export function randomPrivateKey(): Uint8Array {
  for (;;) {
    const k = new Uint8Array(randomBytes(32));
    if (secp256k1().privateKeyVerify(k)) return k;
  }
}
