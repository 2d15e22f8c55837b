// Signing with a raw private key on the native secp256k1 library: 32-byte hashes, EIP-191 personal messages
// (v = 27/28, as geth's personal_sign and ethers' signMessage) and transactions (deterministic RFC 6979, low s).
import type { TypedTransaction } from '@ethereumjs/tx';
import { secp256k1 } from '../primitives/secp256k1.ts';
import { KeyStoreError } from '../errors/index.ts';
import { keccak256 } from '../primitives/hash.ts';

/** A recoverable signature: r ‖ s (64 bytes) and the recovery id (0 or 1). */
export interface RecoverableSignature {
  rs: Uint8Array;
  recid: number;
}

/** Signs a 32-byte hash. */
export function signHash(hash: Uint8Array, key: Uint8Array): RecoverableSignature {
  const { signature, recid } = secp256k1().ecdsaSign(hash, key);
  return { rs: signature, recid };
}

/** EIP-191 version 0x45: keccak256("\x19Ethereum Signed Message:\n" + decimal length + message). */
export function personalMessageHash(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${message.length}`);
  const buf = new Uint8Array(prefix.length + message.length);
  buf.set(prefix, 0);
  buf.set(message, prefix.length);
  return keccak256(buf);
}

/** Signs a message the EIP-191 way; 65 bytes r ‖ s ‖ v with v = 27 or 28. */
export function signPersonalMessage(message: Uint8Array, key: Uint8Array): Uint8Array {
  const { rs, recid } = signHash(personalMessageHash(message), key);
  const out = new Uint8Array(65);
  out.set(rs, 0);
  out[64] = 27 + recid;
  return out;
}

/** The address that made an EIP-191 signature (geth's personal_ecRecover checks and messages). */
export function recoverPersonalMessage(message: Uint8Array, signature: Uint8Array): Uint8Array {
  if (signature.length !== 65) throw new KeyStoreError('signature must be 65 bytes long');
  const v = signature[64]!;
  if (v !== 27 && v !== 28) throw new KeyStoreError('invalid Ethereum signature (V is not 27 or 28)');
  let pub: Uint8Array;
  try {
    pub = secp256k1().ecdsaRecover(signature.subarray(0, 64), v - 27, personalMessageHash(message), false);
  } catch {
    throw new KeyStoreError('invalid signature');
  }
  return keccak256(pub.subarray(1)).slice(12);
}

/** Signs an unsigned transaction (EIP-155 v for legacy ones, y-parity for typed ones). */
export function signTransaction(tx: TypedTransaction, key: Uint8Array): TypedTransaction {
  const { rs, recid } = signHash(tx.getHashedMessageToSign(), key);
  const r = rs.slice(0, 32);
  const s = rs.slice(32, 64);
  if (tx.type === 0) return (tx as import('@ethereumjs/tx').LegacyTx).addSignature(BigInt(recid), r, s, true);
  return tx.addSignature(BigInt(recid), r, s);
}
