// The engine's StateReader over the archive: accounts, code and storage at one state root, read synchronously
// from the trie store (classic-level's getSync behind a node cache). A state root names immutable state, so one
// reader per root is shared by every call and block built on it, and what it read once it never reads again.
// Trie reads go through the ground floor's trie reader (primitives/trie/read.ts; a TrieUpdate is one), which keeps
// every node it decoded, so a node is decoded once however many keys pass through it; a block's state writer forks
// those tries (loadedTries) instead of decoding the same nodes again.
import type { AccountDiff, AccountInfo, Address, StateReader } from '../../evm/index.ts';
import { addressToBytes, bytesToBigint, wordToBytes } from '../../primitives/bytes.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { BoundedMemo } from '../../primitives/boundedMemo.ts';
import { rlpDecode } from '../../primitives/rlp.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import { bytesEqual } from '../../primitives/hex.ts';
import { bytesKey } from '../state/headCache.ts';
import { codeStoreKey } from '../state/walk.ts';
import type { NodeSource } from '../../primitives/trie/read.ts';
import { TrieUpdate } from '../../primitives/trie/update.ts';
import { FlatLayer, type StoredAccount } from './flatLayers.ts';

/**
 * Entries (memoised values and decoded trie nodes) kept before the memo starts over when no budget says otherwise
 * (a few MB: more than a busy head's calls touch between blocks).
 */
const MAX_ENTRIES = 50_000;

/** What one reader entry (a memoised value or a decoded trie node) costs, estimated. */
export const READER_ENTRY_BYTES = 400;

/** How many reader entries `bytes` hold (at least one), or undefined (the reader's default) without a bound. */
export function readerEntriesFor(bytes: number | undefined): number | undefined {
  return bytes === undefined ? undefined : Math.max(1, Math.floor(bytes / READER_ENTRY_BYTES));
}

/**
 * Hashed trie keys kept across readers before the memo starts over: keccak(address) and keccak(slot) are pure, so
 * every reader shares them, and the accounts and slots of one block are mostly the next block's too.
 */
const MAX_KEYS = 100_000;
const accountKeys = new BoundedMemo<Address, Uint8Array>(MAX_KEYS);
const slotKeys = new BoundedMemo<bigint, Uint8Array>(MAX_KEYS);

/** The tries a reader has loaded, forked for a writer (see stateWrite.ts). */
export interface LoadedTries {
  /** The account trie at the reader's root. */
  forkAccounts(): TrieUpdate;
  /** The storage trie at `root`. */
  forkStorage(root: Uint8Array): TrieUpdate;
  /** An account's trie key, keccak(address) (hashed once for reads and writes). */
  accountKey(address: Address): Uint8Array;
  /** A slot's trie key, keccak(slot). */
  slotKey(slot: bigint): Uint8Array;
  /** An account's storage root at the reader's root when the reader already read it (EMPTY_TRIE_ROOT if absent). */
  knownStorageRoot(address: Address): Uint8Array | undefined;
}

/**
 * Decoded tries handed from a committed block to the next block's reader: the account trie at `root` as the
 * block's writer left it, and storage tries by root (those read or written). `entries` counts the nodes they hold.
 * `flat` is the state at `root` as plain values (the parent's reads with the block's writes over them), so the next
 * block reads the accounts and slots its parent touched without a trie walk or an RLP decode.
 */
export interface CarriedTries {
  root: Uint8Array;
  accounts: TrieUpdate;
  storage: Map<string, TrieUpdate>;
  entries: number;
  flat?: FlatState;
}

/** Accounts (null: absent) and slots at one root, and code by hash, as a reader memoises them. */
interface FlatState {
  values: FlatLayer;
  codes: Map<string, Uint8Array>;
}

/** Reads the state at `root` for Kestrel's engine; never written (the engine journals its writes itself). */
export class ArchiveStateReader implements StateReader, LoadedTries {
  private values = new FlatLayer();
  private codes = new Map<string, Uint8Array>();
  private accountTrie: TrieUpdate;
  /** Storage tries by root (bytesKey). */
  private storageTries = new Map<string, TrieUpdate>();
  /** Code by the identity of a memoised account's hash object: the engine asks with it on every call. */
  private codeOf = new WeakMap<Uint8Array, Uint8Array>();
  private entries = 0;
  /** readNode, counting each load as an entry (decoded nodes stay in the tries). */
  private readonly loadNode: NodeSource;

  constructor(
    readonly root: Uint8Array,
    private readonly readNode: NodeSource,
    private readonly hashOf: (n: bigint) => Uint8Array | undefined,
    private readonly maxEntries = MAX_ENTRIES,
    carried?: CarriedTries,
  ) {
    this.loadNode = (key) => {
      this.count();
      return this.readNode(key);
    };
    if (carried !== undefined && bytesEqual(carried.root, root) && carried.entries < maxEntries) {
      // The parent block's tries: its reads and writes decoded (or built) these nodes already.
      this.accountTrie = carried.accounts.fork(root, this.loadNode);
      for (const [key, trie] of carried.storage) this.storageTries.set(key, trie.fork(undefined, this.loadNode));
      this.entries = carried.entries;
      // Values at this very root: readers of it (a block, a preview of it) may share them and add what they read.
      if (carried.flat !== undefined) ({ values: this.values, codes: this.codes } = carried.flat);
    } else {
      this.accountTrie = new TrieUpdate(root, this.loadNode, keccak256);
    }
  }

  /** Entries (memoised values and decoded trie nodes) held now. */
  get entryCount(): number {
    return this.entries;
  }

  /**
   * The tries to hand to the next block's reader once this block commits: `accounts` and `storage` (new storage
   * roots) as the writer committed them at `stateRoot`, with every storage trie this reader loaded; `written` new
   * nodes join the count. `diff` (with each account's storage root after it, `storageRoots`) is what the block
   * changed: laid over this reader's values it gives the flat state at `stateRoot`. Undefined when the count
   * reaches this reader's bound: the next reader would start over anyway, and not holding them frees them now.
   */
  carry(
    stateRoot: Uint8Array,
    accounts: TrieUpdate,
    storage: ReadonlyArray<readonly [Uint8Array, TrieUpdate]>,
    written: number,
    diff: readonly AccountDiff[],
    storageRoots: readonly Uint8Array[],
  ): CarriedTries | undefined {
    const entries = this.entries + written + diff.length;
    if (entries >= this.maxEntries) return undefined;
    const all = new Map(this.storageTries);
    for (const [root, trie] of storage) all.set(bytesKey(root), trie);
    const flat = this.flatAfter(diff, storageRoots);
    return { root: stateRoot, accounts, storage: all, entries, flat };
  }

  /**
   * This reader's values with `diff` over them: a layer holding the block's changes over this reader's values,
   * which stay the parent root's (an abandoned block or a preview goes back to them).
   */
  private flatAfter(diff: readonly AccountDiff[], storageRoots: readonly Uint8Array[]): FlatState {
    if (storageRoots.length !== diff.length) throw new Error('carry: one storage root per account wanted');
    const values = this.values.child();
    diff.forEach((d, i) => {
      if (d.deleted) {
        values.setAccount(d.address, null);
        values.clearStorage(d.address);
        return;
      }
      const storageRoot = storageRoots[i]!;
      const storageEmpty = bytesEqual(storageRoot, EMPTY_TRIE_ROOT);
      const info: AccountInfo = { nonce: d.nonce, balance: d.balance, codeHash: d.codeHash, storageEmpty };
      values.setAccount(d.address, { info, storageRoot });
      // Cleared storage holds only the block's writes; otherwise the writes shadow the slots already known.
      if (d.storageCleared) values.clearStorage(d.address);
      for (const [slot, value] of d.storage) values.setSlot(d.address, slot, value);
    });
    return { values, codes: this.codes };
  }

  /** A fork of the account trie with every node read so far loaded. */
  forkAccounts(): TrieUpdate {
    return this.accountTrie.fork();
  }

  /** A fork of the storage trie at `root` with every node read so far loaded. */
  forkStorage(root: Uint8Array): TrieUpdate {
    return this.storageTrie(root).fork();
  }

  /** An account's trie key, keccak(address). */
  accountKey(address: Address): Uint8Array {
    return accountKeys.get(address) ?? accountKeys.set(address, keccak256(addressToBytes(address)));
  }

  /** A slot's trie key, keccak(slot). */
  slotKey(slot: bigint): Uint8Array {
    return slotKeys.get(slot) ?? slotKeys.set(slot, keccak256(wordToBytes(slot)));
  }

  /** An account's storage root at the root when already read (EMPTY_TRIE_ROOT if absent), else undefined. */
  knownStorageRoot(address: Address): Uint8Array | undefined {
    const acc = this.values.account(address);
    if (acc === undefined) return undefined;
    return acc === null ? EMPTY_TRIE_ROOT : acc.storageRoot;
  }

  /** The account at the root, or undefined when it does not exist. */
  account(address: Address): AccountInfo | undefined {
    return this.stored(address)?.info;
  }

  /** Code by hash (empty for the empty code hash). */
  code(codeHash: Uint8Array): Uint8Array {
    const known = this.codeOf.get(codeHash);
    if (known !== undefined) return known;
    if (bytesEqual(codeHash, EMPTY_CODE_HASH)) return new Uint8Array(0);
    const key = Buffer.from(codeHash.buffer, codeHash.byteOffset, codeHash.byteLength).toString('latin1');
    let code = this.codes.get(key);
    if (code === undefined) {
      code = this.readNode(codeStoreKey(codeHash)) ?? new Uint8Array(0);
      this.count();
      this.codes.set(key, code);
    }
    this.codeOf.set(codeHash, code);
    return code;
  }

  /** A storage slot's value at the root (0n when absent). */
  storage(address: Address, slot: bigint): bigint {
    const cached = this.values.slot(address, slot);
    if (cached !== undefined) return cached;
    const acc = this.stored(address);
    let value = 0n;
    if (acc !== null && !acc.info.storageEmpty) {
      const raw = this.storageTrie(acc.storageRoot).get(this.slotKey(slot));
      if (raw !== undefined) value = bytesToBigint(rlpDecode(raw) as Uint8Array);
    }
    this.count();
    this.values.setSlot(address, slot, value);
    return value;
  }

  /** The hash of an earlier block (zeros when unknown: the engine only asks inside the 256-block window). */
  blockHash(number: bigint): Uint8Array {
    return this.hashOf(number) ?? new Uint8Array(32);
  }

  private stored(address: Address): StoredAccount | null {
    let acc = this.values.account(address);
    if (acc !== undefined) return acc;
    const rlp = this.accountTrie.get(this.accountKey(address));
    if (rlp === undefined) acc = null;
    else {
      const [nonce, balance, storageRoot, codeHash] = rlpDecode(rlp) as Uint8Array[];
      acc = {
        info: {
          nonce: bytesToBigint(nonce!),
          balance: bytesToBigint(balance!),
          codeHash: codeHash!,
          storageEmpty: bytesEqual(storageRoot!, EMPTY_TRIE_ROOT),
        },
        storageRoot: storageRoot!,
      };
    }
    this.count();
    this.values.setAccount(address, acc);
    return acc;
  }

  private storageTrie(root: Uint8Array): TrieUpdate {
    const key = bytesKey(root);
    let trie = this.storageTries.get(key);
    if (trie === undefined) {
      trie = new TrieUpdate(root, this.loadNode, keccak256);
      this.storageTries.set(key, trie);
    }
    return trie;
  }

  private count(): void {
    if (++this.entries <= this.maxEntries) return;
    this.values = new FlatLayer();
    this.codes = new Map();
    // Tries already being walked keep the nodes they hold until the walk ends; new walks start from the roots.
    this.accountTrie = new TrieUpdate(this.root, this.loadNode, keccak256);
    this.storageTries = new Map();
    this.codeOf = new WeakMap();
    this.entries = 1;
  }
}
