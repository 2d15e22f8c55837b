// An ethereumjs state manager over a StateDb's archive, for the tests that check Kestrel's own trie code against
// ethereumjs (the oracle) or build fixtures with it. Kestrel itself no longer runs on it.
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { ValueEncoding } from '@ethereumjs/util';
import { createChainCommon } from '../../src/app/evm/common.ts';
import type { StateDb } from '../../src/app/state/stateDb.ts';
import type { BufferedTrieDb } from '../../src/store/trieDb.ts';

const DEFAULT_COMMON = createChainCommon(9000n);

/** An ethereumjs state manager on top of `root` (empty = the empty trie); its writes go to `db` (drain to persist). */
export function executionState(
  state: StateDb,
  root: Uint8Array,
  db: BufferedTrieDb = state.bufferedDb(),
  common: Common = DEFAULT_COMMON,
): MerkleStateManager {
  state.requireRoot(root);
  const trie = new MerklePatriciaTrie({
    db,
    root: root.length ? root : undefined,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
  });
  return new MerkleStateManager({ common, trie, caches: new Caches() });
}
