// A block's state changes as the head-state cache takes them (HeadChange records: bytes, no engine types), built
// from the engine's diff and the storage roots the state writer reached, so reads at `latest` after the block
// answer from memory with exactly what the trie holds.
import type { AccountDiff } from '../../evm/index.ts';
import { addressToBytes, wordToBytes } from '../../primitives/bytes.ts';
import type { HeadChange } from '../state/headCache.ts';

/** The head-cache records of `diff`, given each account's storage root after the block (same order as `diff`). */
export function headChangesOf(diff: readonly AccountDiff[], storageRoots: readonly Uint8Array[]): HeadChange[] {
  if (storageRoots.length !== diff.length) throw new Error('headChangesOf: one storage root per account wanted');
  return diff.map((d, i) => {
    const storage: Array<[Uint8Array, Uint8Array]> = [];
    // A deleted account's storage goes with it (the cache drops it): its slots are not listed.
    if (!d.deleted) for (const [slot, value] of d.storage) storage.push([wordToBytes(slot), wordToBytes(value)]);
    const change: HeadChange = {
      address: addressToBytes(d.address),
      deleted: d.deleted,
      nonce: d.nonce,
      balance: d.balance,
      codeHash: d.codeHash,
      storageRoot: storageRoots[i]!,
      storageCleared: d.storageCleared,
      storage,
    };
    if (d.code !== undefined) change.code = d.code;
    return change;
  });
}
