// Module state read at a block (queries: gRPC, abci_query, CLI, precompile views through eth_call use the EVM
// path instead). Writes land in a scratch overlay that is dropped: a query such as DelegationRewards ends the
// validator's period on a copy, as the SDK's query does on a cache context.
import { addressToBytes } from '../../primitives/bytes.ts';
import { bytesToBigint, padLeft, bigintToBytes } from '../../primitives/hex.ts';
import type { StateView } from '../state/stateView.ts';
import type { ModuleState } from './env.ts';

/** A scratch ModuleState over a committed state view. */
export function scratchState(view: StateView): ModuleState {
  const slots = new Map<string, bigint>();
  const balances = new Map<bigint, bigint>();
  return {
    get(address, slot) {
      const k = `${address}:${slot}`;
      const v = slots.get(k);
      if (v !== undefined) return v;
      return bytesToBigint(view.storage(addressToBytes(address), padLeft(bigintToBytes(slot), 32)));
    },
    set(address, slot, value) {
      slots.set(`${address}:${slot}`, value);
    },
    balance(address) {
      return balances.get(address) ?? view.account(addressToBytes(address))?.balance ?? 0n;
    },
    setBalance(address, value) {
      balances.set(address, value);
    },
  };
}
