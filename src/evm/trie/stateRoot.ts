// Ethereum's state root over a whole map of accounts: a secure trie (keys keccak(address)) of
// rlp([nonce, balance, storageRoot, codeHash]), each storage trie keyed by keccak(slot) with rlp(trimmed value).
import type { Address } from '../types.ts';
import { keccak256 } from '../keccak.ts';
import { encodeAccountRlp } from './account.ts';
import { bigintToBytes, rlpEncode } from './rlp.ts';
import { trieRoot } from './root.ts';

/** keccak256 of the empty string: the code hash of an account without code. */
export const EMPTY_CODE_HASH = Uint8Array.from(
  Buffer.from('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'hex'),
);

/** An account as the state root sees it. Storage slots holding 0n are absent. */
export interface AccountState {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storage: ReadonlyMap<bigint, bigint>;
}

/** A non-negative integer as exactly `size` big-endian bytes. */
export function bigintToFixed(value: bigint, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let v = value;
  for (let i = size - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (v > 0n) throw new RangeError(`value does not fit in ${size} bytes`);
  return out;
}

/** The root of one account's storage trie. */
export function storageRoot(storage: ReadonlyMap<bigint, bigint>): Uint8Array {
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  for (const [slot, value] of storage) {
    if (value === 0n) continue;
    entries.push([keccak256(bigintToFixed(slot, 32)), rlpEncode(bigintToBytes(value))]);
  }
  return trieRoot(entries);
}

/** The RLP body of an account leaf. */
export function encodeAccount(
  nonce: bigint,
  balance: bigint,
  storageRootHash: Uint8Array,
  codeHash: Uint8Array,
): Uint8Array {
  return encodeAccountRlp(nonce, balance, storageRootHash, codeHash);
}

/** The state root of a whole account map. */
export function stateRoot(accounts: ReadonlyMap<Address, AccountState>): Uint8Array {
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  for (const [address, account] of accounts) {
    const leaf = encodeAccount(account.nonce, account.balance, storageRoot(account.storage), account.codeHash);
    entries.push([keccak256(bigintToFixed(address, 20)), leaf]);
  }
  return trieRoot(entries);
}
