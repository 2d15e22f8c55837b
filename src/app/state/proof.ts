// EIP-1186 account and storage proofs from the archive's Merkle-Patricia tries: the account trie at a block's
// stateRoot and the account's storage trie, so any standard MPT verifier can check them against that root.
import { rlpDecode } from '../../primitives/rlp.ts';
import { bytesToBigint } from '../../primitives/hex.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import { decodeAccount, type StateView } from './stateView.ts';

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

/**
 * Builds the proof of `address` and `slots` (32-byte keys) in the state `view` reads. An absent account gets an
 * exclusion proof in the account trie and empty storage proofs (value 0) for every slot, as geth does.
 */
export function proveAccount(view: StateView, address: Uint8Array, slots: Uint8Array[]): AccountProofRecord {
  const { value, proof: accountProof } = view.proveAccount(address);
  if (value === undefined) {
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
  const account = decodeAccount(value);
  const storageProof = slots.map((slot): StorageProofRecord => {
    const { value: word, proof } = view.proveSlot(account.storageRoot, slot);
    return { slot, value: word === undefined ? 0n : bytesToBigint(rlpDecode(word) as Uint8Array), proof };
  });
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
