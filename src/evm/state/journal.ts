// Undo records of the WorldState. Each entry restores one field; revert walks them backwards.
import type { Account } from './account.ts';

export const J_BALANCE = 0;
export const J_NONCE = 1;
export const J_EXISTS = 2;
export const J_STORAGE = 3;
export const J_CODE = 4;
export const J_RESET = 5;
export const J_WARM_ADDR = 6;
export const J_WARM_SLOT = 7;
export const J_TSTORE = 8;
export const J_TOUCH = 9;
export const J_DESTRUCT = 10;
export const J_CREATED = 11;

/** A whole-account image, kept by J_RESET (re-creation and deletion replace everything at once). */
export interface AccountImage {
  exists: boolean;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array | undefined;
  codeHash: Uint8Array;
  codeEmpty: boolean;
  storage: Map<bigint, bigint> | undefined;
  storageCleared: boolean;
}

/** One undo record. `key` is a slot (J_STORAGE, J_WARM_SLOT, J_TSTORE) or an address (J_TSTORE). */
export class JournalEntry {
  constructor(
    readonly kind: number,
    readonly acc: Account,
    readonly key: bigint,
    readonly prev: unknown,
  ) {}
}

/** Captures the fields a J_RESET restores. */
export function imageOf(a: Account): AccountImage {
  return {
    exists: a.exists,
    nonce: a.nonce,
    balance: a.balance,
    code: a.code,
    codeHash: a.codeHash,
    codeEmpty: a.codeEmpty,
    storage: a.storage,
    storageCleared: a.storageCleared,
  };
}

/** Restores a J_RESET image. */
export function restoreImage(a: Account, img: AccountImage): void {
  a.exists = img.exists;
  a.nonce = img.nonce;
  a.balance = img.balance;
  a.code = img.code;
  a.codeHash = img.codeHash;
  a.codeEmpty = img.codeEmpty;
  a.storage = img.storage;
  a.storageCleared = img.storageCleared;
}
