// The engine's StateReader over the archive: accounts, code and storage at one state root, read synchronously
// from the trie store (classic-level's getSync behind a node cache). A state root names immutable state, so one
// reader per root is shared by every call and block built on it, and what it read once it never reads again.
// Trie reads go through in-memory tries (TrieUpdate) that keep every node they decoded, so a node is decoded once
// however many keys pass through it; a block's state writer forks those tries (loadedTries) instead of decoding
// the same nodes again.
import type { AccountInfo, Address, StateReader } from '../../evm/index.ts';
import { addressToBytes, bytesToBigint, wordToBytes } from '../../evm/bytes.ts';
import { keccak256 } from '../../evm/keccak.ts';
import { rlpDecode } from '../../evm/trie/rlp.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import { bytesEqual } from '../../primitives/hex.ts';
import type { NodeReader } from '../state/trieGet.ts';
import { TrieUpdate } from './trieUpdate.ts';

/**
 * Entries (memoised values and decoded trie nodes) kept before the memo starts over (a few MB: more than a busy
 * head's calls touch between blocks).
 */
const MAX_ENTRIES = 50_000;

/** ethereumjs' key prefix of code entries in the trie store. */
const CODE_PREFIX = 0x63;

/** An account as the archive holds it: the engine's view plus the storage root to read slots under. */
interface StoredAccount {
  info: AccountInfo;
  storageRoot: Uint8Array;
}

/** The tries a reader has loaded, forked for a writer (see stateWrite.ts). */
export interface LoadedTries {
  /** The account trie at the reader's root. */
  forkAccounts(): TrieUpdate;
  /** The storage trie at `root`. */
  forkStorage(root: Uint8Array): TrieUpdate;
}

/** A byte string as a map key (one char per byte). */
function bytesKey(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

/** Reads the state at `root` for Kestrel's engine; never written (the engine journals its writes itself). */
export class ArchiveStateReader implements StateReader, LoadedTries {
  private accounts = new Map<Address, StoredAccount | null>();
  private slots = new Map<Address, Map<bigint, bigint>>();
  private codes = new Map<string, Uint8Array>();
  private accountTrie: TrieUpdate;
  /** Storage tries by root (bytesKey). */
  private storageTries = new Map<string, TrieUpdate>();
  private entries = 0;
  /** readNode, counting each load as an entry (decoded nodes stay in the tries). */
  private readonly loadNode: NodeReader;

  constructor(
    readonly root: Uint8Array,
    private readonly readNode: NodeReader,
    private readonly hashOf: (n: bigint) => Uint8Array | undefined,
    private readonly maxEntries = MAX_ENTRIES,
  ) {
    this.loadNode = (key) => {
      this.count();
      return this.readNode(key);
    };
    this.accountTrie = new TrieUpdate(root, this.loadNode, keccak256);
  }

  /** A fork of the account trie with every node read so far loaded. */
  forkAccounts(): TrieUpdate {
    return this.accountTrie.fork();
  }

  /** A fork of the storage trie at `root` with every node read so far loaded. */
  forkStorage(root: Uint8Array): TrieUpdate {
    return this.storageTrie(root).fork();
  }

  /** The account at the root, or undefined when it does not exist. */
  account(address: Address): AccountInfo | undefined {
    return this.stored(address)?.info;
  }

  /** Code by hash (empty for the empty code hash). */
  code(codeHash: Uint8Array): Uint8Array {
    if (bytesEqual(codeHash, EMPTY_CODE_HASH)) return new Uint8Array(0);
    const key = Buffer.from(codeHash.buffer, codeHash.byteOffset, codeHash.byteLength).toString('latin1');
    let code = this.codes.get(key);
    if (code === undefined) {
      const k = new Uint8Array(33);
      k[0] = CODE_PREFIX;
      k.set(codeHash, 1);
      code = this.readNode(k) ?? new Uint8Array(0);
      this.count();
      this.codes.set(key, code);
    }
    return code;
  }

  /** A storage slot's value at the root (0n when absent). */
  storage(address: Address, slot: bigint): bigint {
    let words = this.slots.get(address);
    const cached = words?.get(slot);
    if (cached !== undefined) return cached;
    const acc = this.stored(address);
    let value = 0n;
    if (acc !== null && !acc.info.storageEmpty) {
      const raw = this.storageTrie(acc.storageRoot).get(keccak256(wordToBytes(slot)));
      if (raw !== undefined) value = bytesToBigint(rlpDecode(raw) as Uint8Array);
    }
    this.count();
    if (words === undefined) {
      words = new Map();
      this.slots.set(address, words);
    }
    words.set(slot, value);
    return value;
  }

  /** The hash of an earlier block (zeros when unknown: the engine only asks inside the 256-block window). */
  blockHash(number: bigint): Uint8Array {
    return this.hashOf(number) ?? new Uint8Array(32);
  }

  private stored(address: Address): StoredAccount | null {
    let acc = this.accounts.get(address);
    if (acc !== undefined) return acc;
    const rlp = this.accountTrie.get(keccak256(addressToBytes(address)));
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
    this.accounts.set(address, acc);
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
    this.accounts = new Map();
    this.slots = new Map();
    this.codes = new Map();
    // Tries already being walked keep the nodes they hold until the walk ends; new walks start from the roots.
    this.accountTrie = new TrieUpdate(this.root, this.loadNode, keccak256);
    this.storageTries = new Map();
    this.entries = 1;
  }
}
