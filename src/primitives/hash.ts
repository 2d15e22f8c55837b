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

/** keccak-256 of no bytes: the code hash of an account without code. */
export const EMPTY_CODE_HASH = Buffer.from('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'hex');

/** The root of an empty Merkle Patricia trie (keccak-256 of rlp("")). */
export const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex');
