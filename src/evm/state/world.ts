// The journaled overlay every transaction of a block (or one call) runs on. Reads go to the StateReader once
// and are cached; writes stay here until diff() hands them out. Tx-scoped data (warm sets, transient storage,
// original slot values, touched and self-destructed accounts) is reset by beginTx().
import type { AccessLog, AccountDiff, StateReader } from '../types.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';
import { EMPTY_BYTES } from '../../primitives/bytes.ts';
import { Account } from './account.ts';
import {
  imageOf,
  J_BALANCE,
  J_CODE,
  J_CREATED,
  J_DESTRUCT,
  J_EXISTS,
  J_NONCE,
  J_RESET,
  J_STORAGE,
  J_TOUCH,
  J_TSTORE,
  J_WARM_ADDR,
  J_WARM_SLOT,
  JournalEntry,
  restoreImage,
  type AccountImage,
} from './journal.ts';

/** The RIPEMD-160 precompile: its touch survives a revert (mainnet block 2675119, kept by every client). */
const RIPEMD_ADDRESS = 3n;

/** The journaled world state of a block or a call. */
export class WorldState {
  readonly reader: StateReader;
  private readonly accounts = new Map<bigint, Account>();
  private readonly journal: JournalEntry[] = [];
  /** Accounts whose per-tx fields were set in the current tx. */
  private txAccounts: Account[] = [];
  private readonly transient = new Map<bigint, Map<bigint, bigint>>();
  /** EIP-161: accounts touched in the current tx (deleted at its end when empty). */
  readonly touched = new Set<Account>();
  /** Accounts self-destructed in their creating tx (deleted at its end). */
  readonly destructed = new Set<Account>();
  /** When set, every address and slot warmed from cold is recorded here (never undone by a revert). */
  accessLog: AccessLog | undefined = undefined;
  /** Accounts and pre-state slots read from the reader so far (what a reused WorldState holds on to). */
  loaded = 0;

  constructor(reader: StateReader) {
    this.reader = reader;
  }

  /** The working copy of an account (loaded from the reader on first use). */
  account(address: bigint): Account {
    let a = this.accounts.get(address);
    if (a === undefined) {
      a = new Account(address, this.reader.account(address));
      this.accounts.set(address, a);
      this.loaded++;
    }
    return a;
  }

  /** The account's code (loaded from the reader on first use). */
  code(a: Account): Uint8Array {
    let c = a.code;
    if (c === undefined) {
      c = this.reader.code(a.codeHash);
      a.code = c;
    }
    return c;
  }

  /** A journal position for revertTo(). */
  snapshot(): number {
    return this.journal.length;
  }

  /** Undoes every change made after `snap` was taken. */
  revertTo(snap: number): void {
    const j = this.journal;
    for (let i = j.length - 1; i >= snap; i--) {
      const e = j[i]!;
      const a = e.acc;
      switch (e.kind) {
        case J_BALANCE:
          a.balance = e.prev as bigint;
          break;
        case J_NONCE:
          a.nonce = e.prev as bigint;
          break;
        case J_EXISTS:
          a.exists = e.prev as boolean;
          break;
        case J_STORAGE:
          if (e.prev === undefined) a.storage!.delete(e.key);
          else a.storage!.set(e.key, e.prev as bigint);
          break;
        case J_CODE: {
          const p = e.prev as [Uint8Array | undefined, Uint8Array, boolean];
          a.code = p[0];
          a.codeHash = p[1];
          a.codeEmpty = p[2];
          break;
        }
        case J_RESET:
          restoreImage(a, e.prev as AccountImage);
          break;
        case J_WARM_ADDR:
          a.warm = false;
          break;
        case J_WARM_SLOT:
          a.warmSlots!.delete(e.key);
          break;
        case J_TSTORE: {
          const m = this.transient.get(a.address)!;
          if (e.prev === 0n) m.delete(e.key);
          else m.set(e.key, e.prev as bigint);
          break;
        }
        case J_TOUCH:
          if (a.address !== RIPEMD_ADDRESS) this.touched.delete(a);
          break;
        case J_DESTRUCT:
          this.destructed.delete(a);
          break;
        case J_CREATED:
          a.createdInTx = e.prev as boolean;
          break;
      }
    }
    j.length = snap;
  }

  private txTrack(a: Account): void {
    if (a.txGen !== this.txGen) {
      a.txGen = this.txGen;
      this.txAccounts.push(a);
    }
  }

  private txGen = 0;

  /** The last of the running fork's contiguous precompiles from 0x01 (precompiles are warm in every tx, EIP-2929). */
  private lastPrecompile = 0n;
  /** The fork's precompile outside that run (0x100 from Osaka), 0n when none (0 is never one). */
  private extraPrecompile = 0n;
  /** The chain's stateful precompiles outside the fork's range: warm in every tx too. */
  private extraWarm: ReadonlySet<bigint> | undefined = undefined;

  /**
   * Starts a transaction: clears warm sets, transient storage, original values, touched/destructed sets.
   * `lastPrecompile` is the last of the fork's precompiles from 0x01 on, `extraPrecompile` one beyond them (or 0n).
   */
  beginTx(lastPrecompile: bigint, extraPrecompile = 0n, extraWarm?: ReadonlySet<bigint>): void {
    this.lastPrecompile = lastPrecompile;
    this.extraPrecompile = extraPrecompile;
    this.extraWarm = extraWarm !== undefined && extraWarm.size !== 0 ? extraWarm : undefined;
    // clear() gives a Map or Set a fresh table even when empty: the checks spare a call those allocations.
    const txAccounts = this.txAccounts;
    if (txAccounts.length !== 0) {
      for (const a of txAccounts) {
        a.warm = false;
        if (a.warmSlots !== undefined && a.warmSlots.size !== 0) a.warmSlots.clear();
        if (a.txOriginal !== undefined && a.txOriginal.size !== 0) a.txOriginal.clear();
        a.createdInTx = false;
      }
      this.txAccounts = [];
    }
    this.txGen++;
    if (this.transient.size !== 0) this.transient.clear();
    if (this.touched.size !== 0) this.touched.clear();
    if (this.destructed.size !== 0) this.destructed.clear();
  }

  /** Ends a transaction: deletes self-destructed accounts and touched empty ones (EIP-161). Journaled. */
  finalizeTx(): void {
    if (this.destructed.size !== 0) {
      for (const a of this.destructed) this.deleteAccount(a);
      this.destructed.clear();
    }
    if (this.touched.size !== 0) {
      for (const a of this.touched) if (a.exists && a.isEmpty()) this.deleteAccount(a);
      this.touched.clear();
    }
  }

  // ---- writes (all journaled) ----

  /** Sets the balance (creates the account if absent). */
  setBalance(a: Account, v: bigint): void {
    this.journal.push(new JournalEntry(J_BALANCE, a, 0n, a.balance));
    a.balance = v;
    a.dirty = true;
    if (!a.exists) this.markExists(a);
  }

  /** Sets the nonce. */
  setNonce(a: Account, v: bigint): void {
    this.journal.push(new JournalEntry(J_NONCE, a, 0n, a.nonce));
    a.nonce = v;
    a.dirty = true;
    if (!a.exists) this.markExists(a);
  }

  /** Marks an absent account as existing (empty). */
  markExists(a: Account): void {
    this.journal.push(new JournalEntry(J_EXISTS, a, 0n, a.exists));
    a.exists = true;
    a.dirty = true;
  }

  /** Replaces the code. */
  setCode(a: Account, code: Uint8Array, codeHash: Uint8Array): void {
    this.journal.push(new JournalEntry(J_CODE, a, 0n, [a.code, a.codeHash, a.codeEmpty]));
    a.code = code;
    a.codeHash = code.length === 0 ? EMPTY_CODE_HASH : codeHash;
    a.codeEmpty = code.length === 0;
    a.dirty = true;
    a.codeChanged = true;
    if (!a.exists) this.markExists(a);
  }

  /** A slot's current value. */
  storage(a: Account, key: bigint): bigint {
    const m = a.storage;
    if (m !== undefined) {
      const v = m.get(key);
      if (v !== undefined) return v;
    }
    if (a.storageCleared) return 0n;
    return this.baseStorage(a, key);
  }

  private baseStorage(a: Account, key: bigint): bigint {
    if (a.baseStorageEmpty) return 0n;
    let c = a.baseCache;
    if (c === undefined) {
      c = new Map();
      a.baseCache = c;
    }
    let v = c.get(key);
    if (v === undefined) {
      v = this.reader.storage(a.address, key);
      c.set(key, v);
      this.loaded++;
    }
    return v;
  }

  /** A slot's value at the start of the current tx (0 for an account created in it). */
  originalStorage(a: Account, key: bigint): bigint {
    if (a.createdInTx) return 0n;
    const v = a.txOriginal?.get(key);
    return v !== undefined ? v : this.storage(a, key);
  }

  /** Writes a slot. */
  setStorage(a: Account, key: bigint, value: bigint): void {
    let orig = a.txOriginal;
    if (orig === undefined) {
      orig = new Map();
      a.txOriginal = orig;
    }
    if (!orig.has(key)) {
      this.txTrack(a);
      orig.set(key, this.storage(a, key));
    }
    let m = a.storage;
    if (m === undefined) {
      m = new Map();
      a.storage = m;
    }
    this.journal.push(new JournalEntry(J_STORAGE, a, key, m.get(key)));
    m.set(key, value);
    a.dirty = true;
  }

  /** Whether the account holds any non-zero slot (EIP-7610 collision check). */
  hasStorage(a: Account): boolean {
    if (a.storage !== undefined) for (const v of a.storage.values()) if (v !== 0n) return true;
    if (a.storageCleared || a.baseStorageEmpty) return false;
    // Pre-state storage is non-empty; it counts unless every slot we wrote is zero and covers it, which the
    // reader cannot tell us cheaply. Treat it as present (a collision), as a trie with entries left would be.
    return true;
  }

  /** Re-creates the account for CREATE: prior storage dropped, nonce and balance kept until set. */
  resetForCreate(a: Account): void {
    this.journal.push(new JournalEntry(J_RESET, a, 0n, imageOf(a)));
    a.storage = undefined;
    a.storageCleared = true;
    a.dirty = true;
    if (!a.exists) a.exists = true;
    this.setCreated(a);
  }

  /** Marks the account as created in this tx (EIP-6780). */
  setCreated(a: Account): void {
    this.txTrack(a);
    this.journal.push(new JournalEntry(J_CREATED, a, 0n, a.createdInTx));
    a.createdInTx = true;
  }

  private deleteAccount(a: Account): void {
    this.journal.push(new JournalEntry(J_RESET, a, 0n, imageOf(a)));
    a.exists = false;
    a.nonce = 0n;
    a.balance = 0n;
    a.code = EMPTY_BYTES;
    a.codeHash = EMPTY_CODE_HASH;
    a.codeEmpty = true;
    a.storage = undefined;
    a.storageCleared = true;
    a.dirty = true;
  }

  /** EIP-161 touch. */
  touch(a: Account): void {
    if (this.touched.has(a)) return;
    this.journal.push(new JournalEntry(J_TOUCH, a, 0n, undefined));
    this.touched.add(a);
  }

  /** Registers a self-destruct of an account created in this tx. */
  destruct(a: Account): void {
    if (this.destructed.has(a)) return;
    this.journal.push(new JournalEntry(J_DESTRUCT, a, 0n, undefined));
    this.destructed.add(a);
  }

  /** Whether an address is warm, without warming it (for tracers). */
  isWarm(a: Account): boolean {
    return a.warm || this.isPrecompile(a.address);
  }

  // Reached only for a cold account, so the later comparisons cost nothing on warm ones.
  private isPrecompile(address: bigint): boolean {
    if (address <= this.lastPrecompile) return address !== 0n;
    return address === this.extraPrecompile || (this.extraWarm !== undefined && this.extraWarm.has(address));
  }

  /** Warms an address; returns whether it was warm already (precompiles always are). */
  warmAddress(a: Account): boolean {
    if (a.warm) return true;
    if (this.isPrecompile(a.address)) return true;
    this.txTrack(a);
    this.journal.push(new JournalEntry(J_WARM_ADDR, a, 0n, undefined));
    a.warm = true;
    if (this.accessLog !== undefined) this.logAccess(a.address);
    return false;
  }

  /** Warms a slot; returns whether it was warm already. */
  warmSlot(a: Account, key: bigint): boolean {
    let ws = a.warmSlots;
    if (ws === undefined) {
      ws = new Set();
      a.warmSlots = ws;
    } else if (ws.has(key)) return true;
    this.txTrack(a);
    this.journal.push(new JournalEntry(J_WARM_SLOT, a, key, undefined));
    ws.add(key);
    if (this.accessLog !== undefined) this.logAccess(a.address).add(key);
    return false;
  }

  private logAccess(address: bigint): Set<bigint> {
    const touched = this.accessLog!.touched;
    let slots = touched.get(address);
    if (slots === undefined) {
      slots = new Set();
      touched.set(address, slots);
    }
    return slots;
  }

  /** EIP-1153 TLOAD. */
  tload(a: Account, key: bigint): bigint {
    const m = this.transient.get(a.address);
    return m === undefined ? 0n : (m.get(key) ?? 0n);
  }

  /** EIP-1153 TSTORE. */
  tstore(a: Account, key: bigint, value: bigint): void {
    let m = this.transient.get(a.address);
    if (m === undefined) {
      m = new Map();
      this.transient.set(a.address, m);
    }
    this.journal.push(new JournalEntry(J_TSTORE, a, key, m.get(key) ?? 0n));
    if (value === 0n) m.delete(key);
    else m.set(key, value);
  }

  /** Every account changed since this WorldState was created. */
  diff(): AccountDiff[] {
    const out: AccountDiff[] = [];
    for (const a of this.accounts.values()) {
      if (!a.dirty) continue;
      const d: AccountDiff = {
        address: a.address,
        deleted: !a.exists,
        nonce: a.nonce,
        balance: a.balance,
        codeHash: a.codeHash,
        storageCleared: a.storageCleared,
        storage: new Map(a.storage ?? []),
      };
      if (a.exists && a.codeChanged && a.code !== undefined) d.code = a.code;
      out.push(d);
    }
    return out;
  }
}
