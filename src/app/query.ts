// Read access to the chain for the RPC layer: block selectors resolved to blocks, txs, receipts and state at any
// height (archive).
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address } from '@ethereumjs/util';
import { NotFoundError, PrunedHistoryError } from '../errors/index.ts';
import type { BlockSelector } from '../primitives/blockSelector.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../primitives/hash.ts';
import { bytesToHex } from '../primitives/hex.ts';
import type { ChainStore } from '../store/chainStore.ts';
import type { KestrelApp } from './app.ts';
import type { BlockRecord, ReceiptRecord } from '../store/records.ts';
import type { StateDb } from './state/stateDb.ts';

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

/** Accounts read at the head block; reset when the head moves (an account at one state root never changes). */
interface HeadAccounts {
  head: BlockRecord;
  byAddress: Map<string, AccountView>;
}

/** Enough for every account a benchmark or a busy dapp touches between two blocks, yet a bounded memory cost. */
const HEAD_ACCOUNT_CACHE_MAX = 8192;

/** Chain reads shared by every namespace. */
export class ChainQuery {
  private headAccounts?: HeadAccounts;

  constructor(
    private readonly app: KestrelApp,
    private readonly chain: ChainStore,
    private readonly state: StateDb,
  ) {}

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
  stateAt(block: BlockRecord): MerkleStateManager {
    return this.state.readView(block.header.stateRoot);
  }

  /**
   * Account fields at a block (zero account when absent). Reads at the head are cached until the next block:
   * eth_getBalance / eth_getTransactionCount at "latest" then skip the trie walk and the account RLP decode, and a
   * cached answer comes back without a promise (the RPC envelope then stays synchronous).
   */
  account(addr: Uint8Array, block: BlockRecord): AccountView | Promise<AccountView> {
    if (block !== this.app.head) return this.readAccount(addr, block);
    let cache = this.headAccounts;
    if (cache?.head !== block) {
      cache = { head: block, byAddress: new Map() };
      this.headAccounts = cache;
    }
    const key = Buffer.from(addr.buffer, addr.byteOffset, addr.byteLength).toString('latin1');
    const hit = cache.byAddress.get(key);
    if (hit) return hit;
    const filling = cache;
    return this.readAccount(addr, block).then((view) => {
      // A commit during the read moved the head; the value is still right for `block`, but not worth keeping.
      if (this.headAccounts === filling) {
        if (filling.byAddress.size >= HEAD_ACCOUNT_CACHE_MAX) filling.byAddress.clear();
        filling.byAddress.set(key, view);
      }
      return view;
    });
  }

  private async readAccount(addr: Uint8Array, block: BlockRecord): Promise<AccountView> {
    const acc = await this.stateAt(block).getAccount(new Address(addr));
    if (!acc) return ZERO_ACCOUNT;
    return Object.freeze({
      nonce: acc.nonce,
      balance: acc.balance,
      codeHash: acc.codeHash,
      storageRoot: acc.storageRoot,
    });
  }

  /** Contract code at a block (empty for EOAs). */
  async code(addr: Uint8Array, block: BlockRecord): Promise<Uint8Array> {
    return this.stateAt(block).getCode(new Address(addr));
  }

  /** A 32-byte storage word at a block. */
  async storage(addr: Uint8Array, slot: Uint8Array, block: BlockRecord): Promise<Uint8Array> {
    const sm = this.stateAt(block);
    const a = new Address(addr);
    if (!(await sm.getAccount(a))) return new Uint8Array(32);
    const v = await sm.getStorage(a, slot);
    const out = new Uint8Array(32);
    out.set(v, 32 - v.length);
    return out;
  }
}

const ZERO_ACCOUNT: AccountView = Object.freeze({
  nonce: 0n,
  balance: 0n,
  codeHash: EMPTY_CODE_HASH,
  storageRoot: EMPTY_TRIE_ROOT,
});
