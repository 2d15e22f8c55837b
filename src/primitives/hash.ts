// Hash functions used across layers (keccak-256 from @noble/hashes, as ethereumjs uses).
import { keccak_256 } from '@noble/hashes/sha3.js';

/** keccak-256 of bytes. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/** keccak-256 of a UTF-8 string. */
export function keccakUtf8(s: string): Uint8Array {
  return keccak_256(new TextEncoder().encode(s));
}
