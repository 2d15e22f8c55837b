// EIP-1186 account and storage proofs from the archive's Merkle-Patricia tries: the account trie at a block's
// stateRoot and the account's storage trie, so any standard MPT verifier can check them against that root.
import { createMerkleProof, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, type Account } from '@ethereumjs/util';
import { bytesToBigint } from '../../primitives/hex.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';

/** One storage slot's value and its proof nodes (RLP-encoded, root first). */
export interface StorageProofRecord {
  slot: Uint8Array;
  value: bigint;
  proof: Uint8Array[];
}

/** An account's fields at a state root with the account-trie proof and the requested storage proofs. */
export interface AccountProofRecord {
  address: Uint8Array;
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageHash: Uint8Array;
  accountProof: Uint8Array[];
  storageProof: StorageProofRecord[];
}

/** The tries behind a state manager (protected in ethereumjs; its own proof helper reads them the same way). */
interface TrieAccess {
  _trie: MerklePatriciaTrie;
  _getStorageTrie(address: Address, account?: Account): MerklePatriciaTrie;
}

/**
 * Builds the proof of `address` and `slots` (32-byte keys) in the state `sm` is opened at. An absent account
 * gets an exclusion proof in the account trie and empty storage proofs (value 0) for every slot, as geth does.
 */
export async function proveAccount(
  sm: MerkleStateManager,
  address: Uint8Array,
  slots: Uint8Array[],
): Promise<AccountProofRecord> {
  const tries = sm as unknown as TrieAccess;
  const addr = new Address(address);
  const account = await sm.getAccount(addr);
  const accountProof = await createMerkleProof(tries._trie, address);
  if (!account) {
    return {
      address,
      nonce: 0n,
      balance: 0n,
      codeHash: EMPTY_CODE_HASH,
      storageHash: EMPTY_TRIE_ROOT,
      accountProof,
      storageProof: slots.map((slot) => ({ slot, value: 0n, proof: [] })),
    };
  }
  const storageTrie = tries._getStorageTrie(addr, account);
  const storageProof: StorageProofRecord[] = [];
  for (const slot of slots) {
    const proof = await createMerkleProof(storageTrie, slot);
    storageProof.push({ slot, value: bytesToBigint(await sm.getStorage(addr, slot)), proof });
  }
  return {
    address,
    nonce: account.nonce,
    balance: account.balance,
    codeHash: account.codeHash,
    storageHash: account.storageRoot,
    accountProof,
    storageProof,
  };
}
