// Synchronous state reads for tracers. Tracer hooks (and the JS sandbox's db.getBalance & co.) run inside a
// synchronous callback, while ethereumjs reads state asynchronously. This reader answers from the state manager's
// own caches (which hold every write made since the replay's outer checkpoint) and otherwise walks the
// Merkle-Patricia trie of the base root with synchronous node reads from the archive.
import { RLP } from '@ethereumjs/rlp';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccountFromRLP, type Account } from '@ethereumjs/util';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT, keccak256 } from '../primitives/hash.ts';
import { bareHex, bytesEqual, concatBytes } from '../primitives/hex.ts';

/** A synchronous node/code lookup by database key (content-addressed, so always consistent). */
export type NodeReader = (key: Uint8Array) => Uint8Array | undefined;

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

type Node = Uint8Array | Node[];

/** Nibbles of a byte string. */
function nibbles(key: Uint8Array): number[] {
  const out = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** Decodes a hex-prefix encoded path: [nibbles, isLeaf]. */
function hexPrefix(encoded: Uint8Array): [number[], boolean] {
  const all = nibbles(encoded);
  const flag = all[0]!;
  return [all.slice(flag & 1 ? 1 : 2), flag >= 2];
}

/** Reads one value from a trie rooted at `root` with a synchronous node source (undefined when absent). */
export function trieGet(readNode: NodeReader, root: Uint8Array, key: Uint8Array): Uint8Array | undefined {
  if (bytesEqual(root, EMPTY_TRIE_ROOT)) return undefined;
  const path = nibbles(keccak256(key));
  let ref: Node = root;
  let i = 0;
  for (;;) {
    let node: Node;
    if (ref instanceof Uint8Array) {
      if (ref.length === 0) return undefined;
      if (ref.length < 32) {
        node = RLP.decode(ref) as Node;
      } else {
        const raw = readNode(ref);
        if (raw === undefined) throw new Error(`state node ${bareHex(ref)} missing`);
        node = RLP.decode(raw) as Node;
      }
    } else {
      node = ref; // embedded node (its RLP is shorter than 32 bytes)
    }
    if (!Array.isArray(node)) return undefined;
    if (node.length === 17) {
      if (i === path.length) {
        const v = node[16] as Uint8Array;
        return v.length ? v : undefined;
      }
      ref = node[path[i++]!]!;
      continue;
    }
    const [seg, isLeaf] = hexPrefix(node[0] as Uint8Array);
    for (const n of seg) if (path[i++] !== n) return undefined;
    if (isLeaf) return i === path.length ? (node[1] as Uint8Array) : undefined;
    ref = node[1]!;
  }
}

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
