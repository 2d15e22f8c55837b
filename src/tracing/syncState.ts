// Synchronous state reads for tracers. Tracer hooks (and the JS sandbox's db.getBalance & co.) run inside a
// synchronous callback, while ethereumjs reads state asynchronously. This reader answers from the state manager's
// own caches (which hold every write made since the replay's outer checkpoint) and otherwise walks the
// Merkle-Patricia trie of the base root with synchronous node reads from the archive.
import { RLP } from '@ethereumjs/rlp';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccountFromRLP, type Account } from '@ethereumjs/util';
import { type NodeReader, trieGet } from '../app/state/trieGet.ts';
import { EMPTY_CODE_HASH } from '../primitives/hash.ts';
import { bytesEqual, concatBytes } from '../primitives/hex.ts';

export type { NodeReader } from '../app/state/trieGet.ts';

/** The account fields tracers read. */
export interface AccountState {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageRoot: Uint8Array;
}

/** Synchronous reads of the state as of the current execution point. */
export interface SyncState {
  account(addr: Uint8Array): AccountState | undefined;
  code(addr: Uint8Array): Uint8Array;
  /** The 32-byte value of a slot (zero when unset). */
  storage(addr: Uint8Array, slot: Uint8Array): Uint8Array;
}

const CODE_PREFIX = new TextEncoder().encode('c');

/** The caches ethereumjs keeps in front of the trie (typed loosely: they are protected members). */
interface CacheView {
  account?: { get(a: Address): { accountRLP?: Uint8Array } | undefined };
  storage?: { get(a: Address, key: Uint8Array): Uint8Array | undefined };
  code?: { get(a: Address): { code?: Uint8Array } | undefined };
}

/**
 * Reads through a MerkleStateManager's caches, then its trie at the base root. Correct while the caller holds
 * a checkpoint on the state manager for the whole replay (so no write is ever flushed into the trie).
 */
export class CachedSyncState implements SyncState {
  private readonly caches: CacheView;
  private readonly trie: { root(): Uint8Array };

  constructor(
    sm: MerkleStateManager,
    private readonly readNode: NodeReader,
  ) {
    const inner = sm as unknown as { _caches?: CacheView; _trie: { root(): Uint8Array } };
    this.caches = inner._caches ?? {};
    this.trie = inner._trie;
  }

  private loadAccount(addr: Uint8Array): Account | undefined {
    const a = new Address(addr);
    const elem = this.caches.account?.get(a);
    if (elem !== undefined) return elem.accountRLP !== undefined ? createAccountFromRLP(elem.accountRLP) : undefined;
    const rlp = trieGet(this.readNode, this.trie.root(), addr);
    return rlp ? createAccountFromRLP(rlp) : undefined;
  }

  /** Account fields, or undefined when the account does not exist. */
  account(addr: Uint8Array): AccountState | undefined {
    const acc = this.loadAccount(addr);
    return acc
      ? { nonce: acc.nonce, balance: acc.balance, codeHash: acc.codeHash, storageRoot: acc.storageRoot }
      : undefined;
  }

  /** Contract code (empty for accounts without code). */
  code(addr: Uint8Array): Uint8Array {
    const elem = this.caches.code?.get(new Address(addr));
    if (elem !== undefined) return elem.code ?? new Uint8Array(0);
    const acc = this.loadAccount(addr);
    if (!acc || bytesEqual(acc.codeHash, EMPTY_CODE_HASH)) return new Uint8Array(0);
    return this.readNode(concatBytes(CODE_PREFIX, acc.codeHash)) ?? new Uint8Array(0);
  }

  /** A storage word, left-padded to 32 bytes. */
  storage(addr: Uint8Array, slot: Uint8Array): Uint8Array {
    const key = slot.length === 32 ? slot : pad32(slot);
    const cached = this.caches.storage?.get(new Address(addr), key);
    let value: Uint8Array;
    if (cached !== undefined) {
      value = RLP.decode(cached) as Uint8Array;
    } else {
      const acc = this.loadAccount(addr);
      const raw = acc ? trieGet(this.readNode, acc.storageRoot, key) : undefined;
      value = raw ? (RLP.decode(raw) as Uint8Array) : new Uint8Array(0);
    }
    return pad32(value);
  }
}

function pad32(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  const out = new Uint8Array(32);
  out.set(b.subarray(Math.max(0, b.length - 32)), 32 - Math.min(32, b.length));
  return out;
}
