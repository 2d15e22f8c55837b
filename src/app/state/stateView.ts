// The state at one root for the read paths (eth_getBalance, eth_getCode, eth_getStorageAt and eth_getProof at any
// block, the bank's EVM balances, CheckTx's sender check, the ABCI account query): synchronous reads of the
// archive's tries through the ground floor's TrieReader (primitives/trie/read.ts), memoised for the view's life. A
// state root names immutable state, so a value (or a decoded node) read once under it is the answer for good.
import { rlpDecode } from '../../primitives/rlp.ts';
import { EMPTY_CODE_HASH, keccak256 } from '../../primitives/hash.ts';
import { bytesEqual, bytesToBigint } from '../../primitives/hex.ts';
import { bytesKey } from './headCache.ts';
import { type NodeSource, type TrieProof, TrieReader } from '../../primitives/trie/read.ts';
import { codeStoreKey } from './walk.ts';

/**
 * What one memoised value or decoded node costs, estimated: the Map entry, its key string and the decoded value (an
 * account's object and RLP, a 32-byte word, a node). Code adds its length.
 */
const ENTRY_BYTES = 300;

/** Memo bytes kept before the memo starts over (about 20,000 entries: more than one block's worth of reads). */
const DEFAULT_MAX_BYTES = 20_000 * ENTRY_BYTES;

/** An account as the account trie holds it. */
export interface StoredAccount {
  nonce: bigint;
  balance: bigint;
  storageRoot: Uint8Array;
  codeHash: Uint8Array;
  /** Its leaf value, rlp([nonce, balance, storageRoot, codeHash]). */
  rlp: Uint8Array;
}

/** Decodes an account leaf of the account trie. */
export function decodeAccount(rlp: Uint8Array): StoredAccount {
  const [nonce, balance, storageRoot, codeHash] = rlpDecode(rlp) as Uint8Array[];
  return {
    nonce: bytesToBigint(nonce!),
    balance: bytesToBigint(balance!),
    storageRoot: storageRoot!,
    codeHash: codeHash!,
    rlp,
  };
}

/** Read-only state at `root`, read through `readNode` (trie nodes by hash, code by codeStoreKey). */
export class StateView {
  private accounts = new Map<string, StoredAccount | null>();
  /** Storage words by (storage root, slot): content that never changes under its root. */
  private words = new Map<string, Uint8Array>();
  private codes = new Map<string, Uint8Array>();
  /** The account trie and the storage tries (by root) read so far, with the nodes they loaded. */
  private accountTrie: TrieReader;
  private storageTries = new Map<string, TrieReader>();
  private held = 0;
  /** readNode, counting each load as an entry (decoded nodes stay in the tries). */
  private readonly loadNode: NodeSource;

  constructor(
    readonly root: Uint8Array,
    readonly readNode: NodeSource,
    /** keccak-256 for the trie keys (the node's WebAssembly one where it has it). */
    readonly hash: (data: Uint8Array) => Uint8Array = keccak256,
    private readonly maxBytes = DEFAULT_MAX_BYTES,
  ) {
    this.loadNode = (key) => {
      this.count(ENTRY_BYTES);
      return this.readNode(key);
    };
    this.accountTrie = new TrieReader(root, this.loadNode);
  }

  /** Estimated bytes the memo holds (see ENTRY_BYTES). */
  get bytes(): number {
    return this.held;
  }

  /** The account at `address` (20 bytes), or undefined when it does not exist. */
  account(address: Uint8Array): StoredAccount | undefined {
    const key = bytesKey(address);
    let acc = this.accounts.get(key);
    if (acc === undefined) {
      const rlp = this.accountTrie.get(this.hash(address));
      acc = rlp === undefined ? null : decodeAccount(rlp);
      this.count(ENTRY_BYTES);
      this.accounts.set(key, acc);
    }
    return acc ?? undefined;
  }

  /** The account's code (empty for an absent account or one without code). */
  code(address: Uint8Array): Uint8Array {
    const acc = this.account(address);
    if (acc === undefined || bytesEqual(acc.codeHash, EMPTY_CODE_HASH)) return new Uint8Array(0);
    const key = bytesKey(acc.codeHash);
    let code = this.codes.get(key);
    if (code === undefined) {
      code = this.readNode(codeStoreKey(acc.codeHash)) ?? new Uint8Array(0);
      this.count(ENTRY_BYTES + code.byteLength);
      this.codes.set(key, code);
    }
    return code;
  }

  /** The 32-byte word at a 32-byte `slot` of the account's storage (zeros when absent); the caller's own copy. */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const acc = this.account(address);
    if (acc === undefined) return new Uint8Array(32);
    const key = bytesKey(acc.storageRoot) + bytesKey(slot);
    let word = this.words.get(key);
    if (word === undefined) {
      const raw = this.storageTrie(acc.storageRoot).get(this.hash(slot));
      word = new Uint8Array(32);
      if (raw !== undefined) {
        const v = rlpDecode(raw) as Uint8Array;
        word.set(v, 32 - v.length);
      }
      this.count(ENTRY_BYTES);
      this.words.set(key, word);
    }
    return word.slice();
  }

  /** The account leaf at `address` with its proof (EIP-1186), through the nodes this view has loaded. */
  proveAccount(address: Uint8Array): TrieProof {
    return this.accountTrie.prove(this.hash(address));
  }

  /** A slot of the storage trie at `storageRoot` with its proof. */
  proveSlot(storageRoot: Uint8Array, slot: Uint8Array): TrieProof {
    return this.storageTrie(storageRoot).prove(this.hash(slot));
  }

  private storageTrie(root: Uint8Array): TrieReader {
    const key = bytesKey(root);
    let trie = this.storageTries.get(key);
    if (trie === undefined) {
      trie = new TrieReader(root, this.loadNode);
      this.storageTries.set(key, trie);
    }
    return trie;
  }

  /** Counts a value or node about to be memoised; past the bound the memo starts over with it. */
  private count(cost: number): void {
    this.held += cost;
    if (this.held <= this.maxBytes) return;
    this.accounts = new Map();
    this.words = new Map();
    this.codes = new Map();
    // A read under way keeps the nodes it holds until it ends; new reads start from the roots.
    this.accountTrie = new TrieReader(this.root, this.loadNode);
    this.storageTries = new Map();
    this.held = cost;
  }
}
