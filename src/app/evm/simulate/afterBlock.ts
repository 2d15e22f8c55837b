// The state after a simulated block, for the next one to start from: the block's diff (from its WorldState) over the
// state before it, as a StateReader, and the trie nodes its state root added, kept in memory over the archive's.
// Each block then writes only its own changes into the trie (the whole request's changes again at every block made
// a 256-block request quadratic).
import type { AccountDiff, AccountInfo, Address, StateReader } from '../../../evm/index.ts';
import { EMPTY_TRIE_ROOT } from '../../../primitives/hash.ts';
import { bytesEqual } from '../../../primitives/hex.ts';
import type { NodeSource } from '../../../primitives/trie/read.ts';

const key = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

/**
 * The state `diff` leaves over `before`; `storageRoots` are the accounts' storage roots after it (index by index
 * with the diff, as writeState reports them), so an account's storage is known empty or not without a trie walk.
 */
export function stateAfter(
  before: StateReader,
  diff: readonly AccountDiff[],
  storageRoots: readonly Uint8Array[],
): StateReader {
  const changed = new Map<Address, { diff: AccountDiff; info: AccountInfo | undefined }>();
  const codes = new Map<string, Uint8Array>();
  diff.forEach((d, i) => {
    const info = d.deleted
      ? undefined
      : {
          nonce: d.nonce,
          balance: d.balance,
          codeHash: d.codeHash,
          storageEmpty: bytesEqual(storageRoots[i]!, EMPTY_TRIE_ROOT),
        };
    changed.set(d.address, { diff: d, info });
    if (d.code !== undefined) codes.set(key(d.codeHash), d.code);
  });
  return {
    account(address) {
      const c = changed.get(address);
      return c === undefined ? before.account(address) : c.info;
    },
    code(codeHash) {
      return codes.get(key(codeHash)) ?? before.code(codeHash);
    },
    storage(address, slot) {
      const c = changed.get(address);
      if (c === undefined) return before.storage(address, slot);
      if (c.diff.deleted) return 0n;
      const v = c.diff.storage.get(slot);
      if (v !== undefined) return v;
      return c.diff.storageCleared ? 0n : before.storage(address, slot);
    },
    blockHash: (n) => before.blockHash(n),
  };
}

/** Trie nodes written in memory, read before the archive's (content-addressed, so both agree where they overlap). */
export class MemoryNodes {
  private readonly nodes = new Map<string, Uint8Array>();

  constructor(private readonly archive: NodeSource) {}

  /** Stores a node (or code entry) a state root computation wrote. */
  readonly put = (k: Uint8Array, value: Uint8Array): void => {
    this.nodes.set(key(k), value);
  };

  /** Reads a node: written here, else from the archive. */
  readonly read: NodeSource = (k) => this.nodes.get(key(k)) ?? this.archive(k);
}
