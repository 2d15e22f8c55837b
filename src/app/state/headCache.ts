// A flat cache of the state at the head block: accounts, code (by hash) and storage words, so reads at `latest`
// answer from memory instead of walking the trie. Filled by reads; at each commit either updated with the block's
// changes (apply: whichever engine produced them) or, when no change list is given, emptied.

import { LRUCache } from 'lru-cache';

/** Account fields, as the chain reads them (the same shape as ChainQuery's HeadAccount). */
export interface HeadAccount {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageRoot: Uint8Array;
}

/** One account's state after a block, as an engine reports it (a plain record: no engine types). */
export interface HeadChange {
  address: Uint8Array;
  /** The account no longer exists (its storage goes with it). */
  deleted: boolean;
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /** The account's storage root after the block (from the trie update at commit). */
  storageRoot: Uint8Array;
  /** Present when the code changed. */
  code?: Uint8Array;
  /** The prior storage is wiped before `storage` applies (the account was re-created). */
  storageCleared: boolean;
  /** Changed slots: 32-byte slot → 32-byte word (all zeros = deleted). */
  storage: ReadonlyMap<Uint8Array, Uint8Array> | Array<[slot: Uint8Array, word: Uint8Array]>;
}

/** Bounds: past them a map starts over (the working set of a busy head fits many times over). */
export interface HeadCacheLimits {
  accounts: number;
  storageWords: number;
  /** Bytes of code (code never changes for its hash; the least recently used goes first). */
  codeBytes: number;
}

/**
 * Estimated memory of one cached account (Map entry, 20-char key, the frozen object, two bigints, the hash arrays are
 * shared with the block's change list) and of one storage word (entry, 32-char key, a 32-byte array).
 */
export const ACCOUNT_ENTRY_BYTES = 320;
export const WORD_ENTRY_BYTES = 240;
/** One cached code's entry beyond the code itself. */
const CODE_ENTRY_BYTES = 200;

const DEFAULT_LIMITS: HeadCacheLimits = { accounts: 65_536, storageWords: 262_144, codeBytes: 64 * 1024 * 1024 };

/** Limits within `stateBytes` for accounts and storage (a third and two thirds) and `codeBytes` for code. */
export function headCacheLimits(stateBytes: number, codeBytes: number): HeadCacheLimits {
  return {
    accounts: Math.max(1, Math.floor(stateBytes / 3 / ACCOUNT_ENTRY_BYTES)),
    storageWords: Math.max(1, Math.floor((stateBytes * 2) / 3 / WORD_ENTRY_BYTES)),
    codeBytes,
  };
}

/** A map key for raw bytes (one char per byte). */
export function bytesKey(b: Uint8Array): string {
  // Addresses and slots, the keys of every head read: one call with fixed arguments is cheaper than a Buffer view
  // plus its latin1 decoder, and this runs on every head read.
  // prettier-ignore
  if (b.length === 20) {
    return String.fromCharCode(b[0]!, b[1]!, b[2]!, b[3]!, b[4]!, b[5]!, b[6]!, b[7]!, b[8]!, b[9]!,
      b[10]!, b[11]!, b[12]!, b[13]!, b[14]!, b[15]!, b[16]!, b[17]!, b[18]!, b[19]!);
  }
  // prettier-ignore
  if (b.length === 32) {
    return String.fromCharCode(b[0]!, b[1]!, b[2]!, b[3]!, b[4]!, b[5]!, b[6]!, b[7]!, b[8]!, b[9]!,
      b[10]!, b[11]!, b[12]!, b[13]!, b[14]!, b[15]!, b[16]!, b[17]!, b[18]!, b[19]!, b[20]!, b[21]!, b[22]!,
      b[23]!, b[24]!, b[25]!, b[26]!, b[27]!, b[28]!, b[29]!, b[30]!, b[31]!);
  }
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

/** The flat state of one head; `version` changes whenever the head does, so a read started before it is not kept. */
export class HeadStateCache {
  private readonly accounts = new Map<string, HeadAccount>();
  /** address key → slot key → word. */
  private readonly storage = new Map<string, Map<string, Uint8Array>>();
  private storageWords = 0;
  /** Code never changes for a hash, so this map survives every head change. */
  private readonly codes: LRUCache<string, Uint8Array>;
  private currentVersion = 0;

  constructor(private readonly limits: HeadCacheLimits = DEFAULT_LIMITS) {
    this.codes = new LRUCache({
      maxSize: limits.codeBytes,
      sizeCalculation: (code) => CODE_ENTRY_BYTES + code.byteLength,
    });
  }

  /** Estimated bytes held: accounts and storage words (`state`) and code. */
  get bytes(): { state: number; code: number } {
    return {
      state: this.accounts.size * ACCOUNT_ENTRY_BYTES + this.storageWords * WORD_ENTRY_BYTES,
      code: this.codes.calculatedSize,
    };
  }

  /** Changes whenever the cached head changes. */
  get version(): number {
    return this.currentVersion;
  }

  /** A cached account (undefined: not cached). */
  account(addr: Uint8Array): HeadAccount | undefined {
    return this.accounts.get(bytesKey(addr));
  }

  /** Keeps an account read at the head, if the head has not moved since the read began (`version`). */
  rememberAccount(version: number, addr: Uint8Array, view: HeadAccount): void {
    if (version !== this.currentVersion) return;
    if (this.accounts.size >= this.limits.accounts) this.accounts.clear();
    this.accounts.set(bytesKey(addr), view);
  }

  /** A cached storage word (undefined: not cached). */
  storageWord(addr: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    return this.storage.get(bytesKey(addr))?.get(bytesKey(slot));
  }

  /** Keeps a storage word read at the head (see rememberAccount). */
  rememberStorage(version: number, addr: Uint8Array, slot: Uint8Array, word: Uint8Array): void {
    if (version !== this.currentVersion) return;
    this.putWord(bytesKey(addr), bytesKey(slot), word);
  }

  /** Code by its hash (undefined: not cached). */
  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(bytesKey(codeHash));
  }

  /** Keeps code by its hash (valid at every height). */
  rememberCode(codeHash: Uint8Array, code: Uint8Array): void {
    // Code larger than the whole share is not kept (lru-cache would refuse it anyway).
    if (CODE_ENTRY_BYTES + code.byteLength > this.limits.codeBytes) return;
    this.codes.set(bytesKey(codeHash), code);
  }

  /**
   * The head moved by one block whose state changes are `changes`: cached entries of changed accounts are updated
   * (and changed accounts are cached), everything else stays valid.
   */
  apply(changes: Iterable<HeadChange>): void {
    this.currentVersion++;
    for (const c of changes) {
      const a = bytesKey(c.address);
      if (c.deleted || c.storageCleared) {
        const words = this.storage.get(a);
        if (words) this.storageWords -= words.size;
        this.storage.delete(a);
      }
      if (c.deleted) {
        this.accounts.delete(a);
        continue;
      }
      if (this.accounts.size >= this.limits.accounts) this.accounts.clear();
      this.accounts.set(
        a,
        Object.freeze({ nonce: c.nonce, balance: c.balance, codeHash: c.codeHash, storageRoot: c.storageRoot }),
      );
      if (c.code !== undefined) this.rememberCode(c.codeHash, c.code);
      const slots = c.storage instanceof Map ? c.storage.entries() : c.storage;
      for (const [slot, word] of slots) this.putWord(a, bytesKey(slot), word);
    }
  }

  /** The head moved and no change list is known: nothing but code stays valid. */
  invalidate(): void {
    this.currentVersion++;
    this.accounts.clear();
    this.storage.clear();
    this.storageWords = 0;
  }

  private putWord(a: string, s: string, word: Uint8Array): void {
    if (this.storageWords >= this.limits.storageWords) {
      this.storage.clear();
      this.storageWords = 0;
    }
    let words = this.storage.get(a);
    if (!words) {
      words = new Map();
      this.storage.set(a, words);
    }
    if (!words.has(s)) this.storageWords++;
    words.set(s, word);
  }
}
