// Archive reads shared by every call run against one state root. A call's reads are journaled inside its
// checkpoint and thrown away with its revert, so without this each eth_call walked the tries again for the same
// slots; a state root names immutable state, so what was read under it once is the answer for good.
// LEGACY: only debug_traceCall on @ethereumjs/vm (app/evm/callVm.ts) uses it; it goes when that runs on the engine.
import { RLP } from '@ethereumjs/rlp';
import { MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager';
import { Account, type Address, createAccountFromRLP, equalsBytes } from '@ethereumjs/util';
import { bareHex } from '../../primitives/hex.ts';

/**
 * Entries kept per root before the reads start over: about 300 bytes each (hex key, value), so some 6 MiB per
 * pooled root, yet more slots than a busy dapp's calls touch between two blocks.
 */
const MAX_ENTRIES = 20_000;

const EMPTY_SLOT_RLP = Uint8Array.of(0x80);

/**
 * Values read from the archive under one state root. Accounts are keyed by address and only used while the
 * account trie still sits at `root`; storage words by (storage root, slot) and code by code hash, both of which
 * name immutable content, so an account changed inside a call (a new storage root, cleared storage) can never
 * be answered with a value read before the change.
 */
export class RootReads {
  private accounts = new Map<string, Uint8Array | null>();
  private storage = new Map<string, Uint8Array>();
  private code = new Map<string, Uint8Array>();
  private entries = 0;

  constructor(
    readonly root: Uint8Array,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The account RLP at the root (null: no account), or undefined when not read yet. */
  account(address: Uint8Array): Uint8Array | null | undefined {
    return this.accounts.get(bareHex(address));
  }

  /** Records an account read from the trie at the root. */
  setAccount(address: Uint8Array, rlp: Uint8Array | null): void {
    this.count();
    this.accounts.set(bareHex(address), rlp);
  }

  /** The RLP-encoded word (0x80 = empty) at `slot` of the storage trie rooted at `storageRoot`, if read. */
  slot(storageRoot: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    return this.storage.get(bareHex(storageRoot) + bareHex(slot));
  }

  /** Records a storage word read from the trie. */
  setSlot(storageRoot: Uint8Array, slot: Uint8Array, rlp: Uint8Array): void {
    this.count();
    this.storage.set(bareHex(storageRoot) + bareHex(slot), rlp);
  }

  /** The code with this hash, if read. */
  codeOf(codeHash: Uint8Array): Uint8Array | undefined {
    return this.code.get(bareHex(codeHash));
  }

  /** Records code read from the archive. */
  setCode(codeHash: Uint8Array, code: Uint8Array): void {
    this.count();
    this.code.set(bareHex(codeHash), code);
  }

  private count(): void {
    if (++this.entries <= this.maxEntries) return;
    this.accounts = new Map();
    this.storage = new Map();
    this.code = new Map();
    this.entries = 1;
  }
}

/**
 * A state manager for throw-away execution (calls) that answers trie reads from a RootReads before walking the
 * tries. Only reads that miss its own journaled caches get here, i.e. values the current execution has not
 * written, so they are exactly the archive's values.
 */
export class RootReadsStateManager extends MerkleStateManager {
  /**
   * Decoded accounts by their RLP. Every call decodes the sender, callee and coinbase from the account cache
   * several times; a cached RLP array is never mutated (a write puts a new one), so its decoding can be reused.
   * Callers mutate the Account they get, hence a fresh copy per read.
   */
  private readonly decoded = new WeakMap<Uint8Array, Account>();

  constructor(
    opts: MerkleStateManagerOpts,
    private readonly reads: RootReads,
  ) {
    super(opts);
  }

  private decode(rlp: Uint8Array): Account {
    let a = this.decoded.get(rlp);
    if (a === undefined) {
      a = createAccountFromRLP(rlp);
      this.decoded.set(rlp, a);
    }
    return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
  }

  /** getAccount, with trie reads shared through the RootReads while the account trie is at its root. */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address);
    if (elem !== undefined) return elem.accountRLP !== undefined ? this.decode(elem.accountRLP) : undefined;
    // The account trie only moves on a flush of written accounts; then the memo no longer describes it.
    if (!equalsBytes(this._trie.root(), this.reads.root)) return super.getAccount(address);
    let rlp = this.reads.account(address.bytes);
    if (rlp === undefined) {
      rlp = await this._trie.get(address.bytes);
      this.reads.setAccount(address.bytes, rlp);
    }
    const account = rlp !== null ? this.decode(rlp) : undefined;
    this._caches?.account?.put(address, account);
    return account;
  }

  /** getStorage, with trie reads shared through the RootReads under the account's storage root. */
  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const storageCache = this._caches?.storage;
    if (key.length !== 32 || storageCache === undefined) return super.getStorage(address, key);
    const cached = storageCache.get(address, key);
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
    const account = await this.getAccount(address);
    if (!account) return new Uint8Array();
    // ethereumjs keeps account.storageRoot equal to the root of the account's storage trie (every storage-trie
    // write updates it), so (storageRoot, slot) names the value the trie read below would return.
    let rlp = this.reads.slot(account.storageRoot, key);
    if (rlp === undefined) {
      rlp = (await this._getStorageTrie(address, account).get(key)) ?? EMPTY_SLOT_RLP;
      this.reads.setSlot(account.storageRoot, key, rlp);
    }
    storageCache.put(address, key, rlp);
    return RLP.decode(rlp) as Uint8Array;
  }

  /** getCode, with code shared through the RootReads by code hash. */
  override async getCode(address: Address): Promise<Uint8Array> {
    const codeCache = this._caches?.code;
    if (codeCache === undefined) return super.getCode(address);
    const elem = codeCache.get(address);
    if (elem !== undefined) return elem.code ?? new Uint8Array(0);
    const account = await this.getAccount(address);
    if (!account || !account.isContract()) return new Uint8Array(0);
    const hit = this.reads.codeOf(account.codeHash);
    if (hit !== undefined) {
      codeCache.put(address, hit);
      return hit;
    }
    const code = await super.getCode(address);
    this.reads.setCode(account.codeHash, code);
    return code;
  }
}
