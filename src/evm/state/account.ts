// The engine's working copy of one account: pre-state read lazily, current values, per-tx warmth.
import type { AccountInfo } from '../types.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';
import { EMPTY_BYTES } from '../../primitives/bytes.ts';

/** One account as the running transactions see it. Objects are never replaced, so frames may hold them. */
export class Account {
  readonly address: bigint;
  exists: boolean;
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /** Loaded lazily from the reader (undefined until first needed). */
  code: Uint8Array | undefined;
  codeEmpty: boolean;
  /** Pre-state storage trie is empty (from the reader); meaningless once storageCleared. */
  baseStorageEmpty: boolean;
  /** The prior storage is gone (account re-created or deleted): reads of unwritten slots give 0. */
  storageCleared: boolean;
  // The collections below are created on first use: most accounts a call loads (sender, coinbase, callees)
  // never need them, and allocating four per account was a fifth of a short call's time (GC).
  /** Slots written since the WorldState was created (journaled). */
  storage: Map<bigint, bigint> | undefined;
  /** Pre-state slot values read so far (a cache of the reader, never journaled). */
  baseCache: Map<bigint, bigint> | undefined;
  /** Slot values at the start of the current tx, recorded on first write (EIP-2200 "original value"). */
  txOriginal: Map<bigint, bigint> | undefined;
  /** EIP-2929 warm address / warm slots of the current tx. */
  warm: boolean;
  warmSlots: Set<bigint> | undefined;
  /** Created in the current tx (EIP-6780 self-destruct, original storage 0). */
  createdInTx: boolean;
  /** Has been written since the WorldState was created (for diff()). */
  dirty: boolean;
  /** setCode ran on it since the WorldState was created (diff() then hands the code out). */
  codeChanged: boolean;
  /** Generation stamp of the tx whose per-tx fields (txOriginal, warm, createdInTx) are current. */
  txGen: number;

  constructor(address: bigint, info: AccountInfo | undefined) {
    this.address = address;
    this.exists = info !== undefined;
    this.nonce = info?.nonce ?? 0n;
    this.balance = info?.balance ?? 0n;
    this.codeHash = info?.codeHash ?? EMPTY_CODE_HASH;
    this.codeEmpty = info === undefined || isEmptyHash(info.codeHash);
    this.code = this.codeEmpty ? EMPTY_BYTES : undefined;
    this.baseStorageEmpty = info?.storageEmpty ?? true;
    this.storageCleared = info === undefined;
    this.storage = undefined;
    this.baseCache = undefined;
    this.txOriginal = undefined;
    this.warm = false;
    this.warmSlots = undefined;
    this.createdInTx = false;
    this.dirty = false;
    this.codeChanged = false;
    this.txGen = -1;
  }

  /** EIP-161 empty: no nonce, no balance, no code. */
  isEmpty(): boolean {
    return this.nonce === 0n && this.balance === 0n && this.codeEmpty;
  }

  /** EIP-161 dead: absent or empty. */
  isDead(): boolean {
    return !this.exists || (this.nonce === 0n && this.balance === 0n && this.codeEmpty);
  }
}

function isEmptyHash(h: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (h[i] !== EMPTY_CODE_HASH[i]) return false;
  return true;
}
