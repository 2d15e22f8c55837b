// The StateReader of a forked chain: the local trie for what it holds, the fork cache for what was fetched and not
// yet committed locally, and a recorded miss for what neither has (the run is repeated once the misses are fetched:
// ForkState.resolve). A miss reads as absent meanwhile; that run's result is thrown away.
import type { AccountInfo, Address, StateReader } from '../../evm/types.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';
import type { ForkState } from './forkState.ts';

/** `base` (the local state at local height `height`) with the fork's upstream values behind it. */
export function forkReader(base: StateReader, fork: ForkState, height: bigint): StateReader {
  return {
    account(address: Address): AccountInfo | undefined {
      const f = fork.account(address, height);
      if (f === undefined) {
        const local = base.account(address);
        // Never fetched and absent locally: upstream may hold it.
        if (local === undefined && !fork.accounts.has(address)) fork.misses.accounts.add(address);
        return local;
      }
      if (f === null) return base.account(address);
      return { nonce: f.nonce, balance: f.balance, codeHash: f.codeHash, storageEmpty: false };
    },
    code(codeHash: Uint8Array): Uint8Array {
      return fork.code(codeHash) ?? base.code(codeHash);
    },
    storage(address: Address, slot: bigint): bigint {
      const v = fork.slot(address, slot, height);
      if (v !== undefined) return v;
      const acc = fork.accounts.get(address);
      if (acc === undefined) {
        // An account only the local chain has (a dev account, a contract created here) keeps its storage locally.
        if (base.account(address) === undefined) fork.misses.slot(address, slot);
        return base.storage(address, slot);
      }
      // An upstream account without code has no storage worth a request.
      if (acc === null || acc.codeHash === EMPTY_CODE_HASH || acc.code.length === 0) return base.storage(address, slot);
      if (fork.slots.get(address)?.has(slot) !== true) fork.misses.slot(address, slot);
      return base.storage(address, slot);
    },
    // Below the fork the upstream's chain answers (the local chain's first block is the fork block itself).
    blockHash: (n) => (n < fork.point.number ? (fork.blockHash(n) ?? new Uint8Array(32)) : base.blockHash(n)),
  };
}
