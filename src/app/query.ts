// Read access to the chain for the RPC layer: block selectors resolved to blocks, txs, receipts and state at any
// height (archive).
import { NotFoundError, PrunedHistoryError } from '../errors/index.ts';
import type { BlockSelector } from '../primitives/blockSelector.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../primitives/hash.ts';
import { bytesToHex } from '../primitives/hex.ts';
import type { ChainStore } from '../store/chainStore.ts';
import type { KestrelApp } from './app.ts';
import type { BlockRecord, ReceiptRecord } from '../store/records.ts';
import { HeadStateCache, type HeadCacheLimits, type HeadChange } from './state/headCache.ts';
import type { StateDb } from './state/stateDb.ts';
import type { StateView } from './state/stateView.ts';

/** A mined transaction with its block and position. */
export interface MinedTx {
  block: BlockRecord;
  index: number;
}

/** Account fields at a block. */
export interface AccountView {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageRoot: Uint8Array;
}

/** Chain reads shared by every namespace. */
export class ChainQuery {
  /** Flat state of the head, for reads at `latest` (see headCache.ts). */
  private readonly headCache: HeadStateCache;
  /** The block the head cache describes. */
  private cachedHead?: BlockRecord;

  constructor(
    private readonly app: KestrelApp,
    private readonly chain: ChainStore,
    private readonly state: StateDb,
    /** The head cache's bounds (from the [cache] budget; its defaults otherwise). */
    headLimits?: HeadCacheLimits,
  ) {
    this.headCache = new HeadStateCache(headLimits);
  }

  /** Estimated bytes of the head cache: accounts and storage (`state`), and code. */
  get headCacheBytes(): { state: number; code: number } {
    return this.headCache.bytes;
  }

  /** The latest committed block. */
  head(): BlockRecord {
    return this.app.head;
  }

  /** The block at a height, or undefined. */
  blockByNumber(n: bigint): BlockRecord | undefined {
    if (n > this.app.head.number) return undefined;
    const b = this.chain.blockByNumber(n);
    // A node that joined by state sync has no blocks before its snapshot's: say so, as geth does for expired history.
    if (!b && n < this.chain.earliestBlock()) throw new PrunedHistoryError();
    return b;
  }

  /** The chain's first local block: genesis, or a forked chain's fork block. */
  firstBlock(): BlockRecord {
    const b = this.chain.blockByNumber(this.chain.forkPoint?.number ?? 0n);
    if (!b) throw new NotFoundError('first block not found');
    return b;
  }

  /** The block with a hash, or undefined. */
  blockByHash(hash: Uint8Array): BlockRecord | undefined {
    const n = this.chain.numberOfHash(hash);
    return n === undefined ? undefined : this.blockByNumber(n);
  }

  /** Resolves a selector to a block, or undefined when it names no block (getBlockBy* answer null). */
  findBlock(sel: BlockSelector): BlockRecord | undefined {
    switch (sel.kind) {
      case 'tag':
        return sel.tag === 'earliest' ? this.chain.blockByNumber(0n) : this.app.head;
      case 'number':
        return this.blockByNumber(sel.number);
      case 'hash':
        return this.blockByHash(sel.hash);
    }
  }

  /** Resolves a selector for a state method; unknown blocks are errors (geth: "header not found"). */
  resolveBlock(sel: BlockSelector): BlockRecord {
    const b = this.findBlock(sel);
    if (b) return b;
    if (sel.kind === 'hash') throw new NotFoundError(`header for hash ${bytesToHex(sel.hash)} not found`);
    throw new NotFoundError('header not found');
  }

  /** The receipts of a block. */
  receipts(block: BlockRecord): ReceiptRecord[] {
    const rs = this.chain.receipts(block.number);
    if (!rs) throw new NotFoundError(`receipts of block ${block.number} not found`);
    return rs;
  }

  /** A mined transaction by hash, or undefined. */
  minedTx(hash: Uint8Array): MinedTx | undefined {
    const loc = this.chain.txLocation(hash);
    if (!loc || loc.blockNumber > this.app.head.number) return undefined;
    const block = this.chain.blockByNumber(loc.blockNumber);
    return block ? { block, index: loc.index } : undefined;
  }

  /** Read-only state at a block. */
  stateAt(block: BlockRecord): StateView {
    return this.state.readView(block.header.stateRoot);
  }

  /**
   * Applies a committed block's state changes to the head cache, for an engine that reports them; without this
   * call the cache starts over at each new head. Ignored unless the cache describes the block's parent.
   */
  applyHeadChanges(block: BlockRecord, changes: Iterable<HeadChange>): void {
    const prev = this.cachedHead;
    if (prev !== undefined && prev.number + 1n === block.number && equalBytes(prev.hash, block.header.parentHash)) {
      this.headCache.apply(changes);
    } else {
      this.headCache.invalidate();
    }
    this.cachedHead = block;
  }

  /** The head cache when `block` is the head (brought up to it), else undefined. */
  private headState(block: BlockRecord): HeadStateCache | undefined {
    if (block !== this.app.head) return undefined;
    if (this.cachedHead !== block) {
      this.headCache.invalidate();
      this.cachedHead = block;
    }
    return this.headCache;
  }

  /**
   * Account fields at a block (zero account when absent). At the head they come from the flat head cache when it
   * has them, without a trie walk.
   */
  account(addr: Uint8Array, block: BlockRecord): AccountView {
    const cache = this.headState(block);
    if (!cache) return this.readAccount(addr, block);
    const hit = cache.account(addr);
    if (hit) return hit;
    const view = this.readAccount(addr, block);
    cache.rememberAccount(cache.version, addr, view);
    return view;
  }

  private readAccount(addr: Uint8Array, block: BlockRecord): AccountView {
    const acc = this.stateAt(block).account(addr);
    if (!acc) return ZERO_ACCOUNT;
    return Object.freeze({
      nonce: acc.nonce,
      balance: acc.balance,
      codeHash: acc.codeHash,
      storageRoot: acc.storageRoot,
    });
  }

  /** Contract code at a block (empty for EOAs); at the head from the flat cache when it has it. */
  code(addr: Uint8Array, block: BlockRecord): Uint8Array {
    const cache = this.headState(block);
    if (!cache) return this.stateAt(block).code(addr);
    const view = this.account(addr, block);
    if (equalBytes(view.codeHash, EMPTY_CODE_HASH)) return EMPTY_CODE;
    const hit = cache.code(view.codeHash);
    if (hit) return hit;
    const code = this.stateAt(block).code(addr);
    cache.rememberCode(view.codeHash, code);
    return code;
  }

  /** A 32-byte storage word at a block; at the head from the flat cache when it has it. */
  storage(addr: Uint8Array, slot: Uint8Array, block: BlockRecord): Uint8Array {
    const cache = this.headState(block);
    if (!cache) return this.stateAt(block).storage(addr, slot);
    const hit = cache.storageWord(addr, slot);
    if (hit) return hit;
    const word = this.stateAt(block).storage(addr, slot);
    cache.rememberStorage(cache.version, addr, slot, word);
    return word;
  }
}

const EMPTY_CODE = new Uint8Array(0);

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

const ZERO_ACCOUNT: AccountView = Object.freeze({
  nonce: 0n,
  balance: 0n,
  codeHash: EMPTY_CODE_HASH,
  storageRoot: EMPTY_TRIE_ROOT,
});
