// Ethereum's state root over a whole map of accounts: a secure trie (keys keccak(address)) of
// rlp([nonce, balance, storageRoot, codeHash]), each storage trie keyed by keccak(slot) with rlp(trimmed value).
import { keccak256 } from '../keccak.ts';
import { encodeAccountRlp } from './account.ts';
import { bigintToFixedBytes, bigintToMinBytes } from '../bytes.ts';
import { rlpEncode } from '../rlp.ts';
import { trieRoot } from './root.ts';

/** An account's 20-byte address as a number (the engine's Address). */
type Address = bigint;

/** An account as the state root sees it. Storage slots holding 0n are absent. */
export interface AccountState {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storage: ReadonlyMap<bigint, bigint>;
}

/** The root of one account's storage trie. */
export function storageRoot(storage: ReadonlyMap<bigint, bigint>): Uint8Array {
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  for (const [slot, value] of storage) {
    if (value === 0n) continue;
    entries.push([keccak256(bigintToFixedBytes(slot, 32)), rlpEncode(bigintToMinBytes(value))]);
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
    entries.push([keccak256(bigintToFixedBytes(address, 20)), leaf]);
  }
  return trieRoot(entries);
}
