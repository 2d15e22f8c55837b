// keccak-256 by name for the node, and the hashes of empty things every layer compares against.
import { hexToBytes } from './bytes.ts';
import { keccak256 } from './keccak.ts';

export { keccak256 };

/** keccak-256 of a UTF-8 string. */
export function keccakUtf8(s: string): Uint8Array {
  return keccak256(new TextEncoder().encode(s));
}

/** keccak-256 of no bytes: the code hash of an account without code. */
export const EMPTY_CODE_HASH = hexToBytes('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');

/** The root of an empty Merkle Patricia trie (keccak-256 of rlp("")). */
export const EMPTY_TRIE_ROOT = hexToBytes('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
