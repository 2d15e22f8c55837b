// Writes a block's state changes (the engine's AccountDiff list) into the archive's account and storage tries and
// returns the new state root. The encoding is ethereumjs' MerkleStateManager's, so the root and every node reachable
// from it are the ones ethereumjs' own writes produced: account leaves rlp([nonce, balance, storageRoot, codeHash])
// under keccak(address), storage leaves rlp(trimmed word) under keccak(slot), code under 'c' ‖ codeHash.
import type { AccountDiff } from '../../evm/index.ts';
import { addressToBytes, bigintToMinBytes, wordToBytes } from '../../primitives/bytes.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeAccountRlp } from '../../primitives/trie/account.ts';
import { rlpDecode, rlpEncode } from '../../primitives/rlp.ts';
import { EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import type { NodeSource } from '../../primitives/trie/read.ts';
import { codeStoreKey } from '../state/walk.ts';
import { TrieUpdate } from '../../primitives/trie/update.ts';
import type { LoadedTries } from './archiveReader.ts';

const EMPTY = new Uint8Array(0);

/** What a block's writer may borrow and report besides the new root. */
export interface WriteOptions {
  /** The block's reader at `parentRoot`: the tries execution already decoded, and the keys it hashed. */
  loaded?: LoadedTries;
  /** Receives each account's storage root after the block (index by index with the diff; empty root if deleted). */
  storageRoots?: Uint8Array[];
  /** Receives the committed tries (the next block can read through them): the account trie, storage tries by root. */
  tries?: { accounts?: TrieUpdate; storage: Array<[Uint8Array, TrieUpdate]> };
}

/**
 * Applies `diff` to the state at `parentRoot` (nodes read through `readNode`), handing every new trie node and
 * code entry to `put`; returns the new state root.
 */
export function writeState(
  parentRoot: Uint8Array,
  diff: readonly AccountDiff[],
  readNode: NodeSource,
  put: (key: Uint8Array, value: Uint8Array) => void,
  { loaded, storageRoots, tries }: WriteOptions = {},
): Uint8Array {
  const accounts = loaded?.forkAccounts() ?? new TrieUpdate(parentRoot, readNode, keccak256);
  for (const d of diff) {
    const key = loaded?.accountKey(d.address) ?? keccak256(addressToBytes(d.address));
    if (d.deleted) {
      accounts.put(key, EMPTY);
      storageRoots?.push(EMPTY_TRIE_ROOT);
      continue;
    }
    let storageRoot: Uint8Array = EMPTY_TRIE_ROOT;
    if (!d.storageCleared) {
      // Execution read every account it changed: its reader knows the storage root without a trie walk.
      const known = loaded?.knownStorageRoot(d.address);
      if (known !== undefined) storageRoot = known;
      else {
        const old = accounts.get(key);
        if (old !== undefined) storageRoot = (rlpDecode(old) as Uint8Array[])[2]!;
      }
    }
    if (d.storage.size > 0) {
      const storage = loaded?.forkStorage(storageRoot) ?? new TrieUpdate(storageRoot, readNode, keccak256);
      for (const [slot, value] of d.storage) {
        storage.put(
          loaded?.slotKey(slot) ?? keccak256(wordToBytes(slot)),
          value === 0n ? EMPTY : rlpEncode(bigintToMinBytes(value)),
        );
      }
      storageRoot = storage.commit(put);
      tries?.storage.push([storageRoot, storage]);
    }
    storageRoots?.push(storageRoot);
    if (d.code !== undefined) put(codeStoreKey(d.codeHash), d.code);
    accounts.put(key, encodeAccountRlp(d.nonce, d.balance, storageRoot, d.codeHash));
  }
  const root = accounts.commit(put);
  if (tries) tries.accounts = accounts;
  return root;
}
