// Direct state edits — the genesis allocation and the dev toolkit's anvil_/hardhat_ setBalance, setNonce, setCode
// and setStorageAt — as the engine's state diff, so they reach the trie through the same writer as a block's
// transactions (app/evm/stateWrite.ts). An edit of an absent account creates it (nonce 0, no balance, code or
// storage) before its fields apply, and an edited account stays even when it ends up empty: no EIP-161 clean-up
// runs on an edit, as none ran on ethereumjs' putAccount.
import type { AccountDiff, StateReader } from '../evm/index.ts';
import { bytesToBigint } from '../primitives/bytes.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { EMPTY_CODE_HASH } from '../primitives/hash.ts';

/** New values for one account; fields left out keep their value. */
export interface StateEdit {
  /** 20 bytes. */
  address: Uint8Array;
  nonce?: bigint;
  balance?: bigint;
  code?: Uint8Array;
  /** 32-byte slot → 32-byte word, in order (a zero word deletes the slot). */
  storage?: ReadonlyArray<readonly [Uint8Array, Uint8Array]>;
}

/**
 * The state diff that applies `edits`, in order, to the state `reader` reads (one entry per account, in the order
 * each was first edited). Needs the engine's keccak (initKeccak) when an edit sets code.
 */
export function editsDiff(reader: Pick<StateReader, 'account'>, edits: readonly StateEdit[]): AccountDiff[] {
  const diffs = new Map<bigint, AccountDiff>();
  for (const e of edits) {
    const address = bytesToBigint(e.address);
    let d = diffs.get(address);
    if (d === undefined) {
      const acc = reader.account(address);
      d = {
        address,
        deleted: false,
        nonce: acc?.nonce ?? 0n,
        balance: acc?.balance ?? 0n,
        codeHash: acc?.codeHash ?? EMPTY_CODE_HASH,
        storageCleared: false,
        storage: new Map(),
      };
      diffs.set(address, d);
    }
    if (e.nonce !== undefined) d.nonce = e.nonce;
    if (e.balance !== undefined) d.balance = e.balance;
    if (e.code !== undefined) {
      if (e.code.length === 0) {
        d.codeHash = EMPTY_CODE_HASH;
        delete d.code;
      } else {
        d.codeHash = keccak256(e.code);
        d.code = e.code;
      }
    }
    for (const [slot, word] of e.storage ?? []) d.storage.set(bytesToBigint(slot), bytesToBigint(word));
  }
  return [...diffs.values()];
}
