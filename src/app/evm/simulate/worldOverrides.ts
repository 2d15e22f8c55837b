// A simulated block's state overrides, written into the simulation's WorldState (so later blocks see them and each
// block's state root includes them), with the effects the ethereumjs state manager's writes had: any named field
// makes the account exist; `state` empties the storage first; a zero slot value deletes the slot.
import type { WorldState } from '../../../evm/index.ts';
import { EMPTY_CODE_HASH } from '../../../primitives/hash.ts';
import { keccak256 } from '../../../primitives/keccak.ts';
import { bytesToBigint } from '../../../primitives/hex.ts';
import type { AccountOverride } from '../../../primitives/overrides.ts';
import { addressOf } from '../engineTx.ts';

/** Writes validated account overrides (planOverrides' `accounts`, in its order) between transactions. */
export function writeWorldOverrides(world: WorldState, accounts: readonly AccountOverride[]): void {
  for (const o of accounts) {
    const acc = world.account(addressOf(o.address));
    if (o.nonce !== undefined) world.setNonce(acc, o.nonce);
    if (o.balance !== undefined) world.setBalance(acc, o.balance);
    if (o.code !== undefined) world.setCode(acc, o.code, o.code.length === 0 ? EMPTY_CODE_HASH : keccak256(o.code));
    if (o.state !== undefined) {
      // Storage replaced: what was there reads as zero (the account's "created" mark ends with the next tx's start).
      world.resetForCreate(acc);
      for (const [slot, value] of o.state) world.setStorage(acc, bytesToBigint(slot), bytesToBigint(value));
    }
    if (o.stateDiff !== undefined) {
      if (!acc.exists) world.markExists(acc);
      for (const [slot, value] of o.stateDiff) world.setStorage(acc, bytesToBigint(slot), bytesToBigint(value));
    }
  }
}
