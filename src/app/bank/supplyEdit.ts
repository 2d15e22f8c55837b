// Dev-toolkit balance edits (anvil_setBalance, hardhat_setBalance) mint or burn: the bank's supply delta moves by the
// net change of the edited balances in the same state edit, so the EVM denom's supply stays the sum of balances.
import type { StateReader } from '../../evm/index.ts';
import { bigintToBytes, bytesToBigint, padLeft } from '../../primitives/hex.ts';
import { BANK_ADDRESS, SUPPLY_DELTA_STORAGE_SLOT, supplyDelta, supplyDeltaWord } from '../staking/env.ts';
import type { StateEdit } from '../stateEdits.ts';

const word = (n: bigint) => padLeft(bigintToBytes(n), 32);

/** `edits` plus, when they change the sum of balances, the edit that moves the supply delta by as much. */
export function withSupplyFollowing(
  reader: Pick<StateReader, 'account' | 'storage'>,
  edits: readonly StateEdit[],
): readonly StateEdit[] {
  // The last balance each edit sets per account wins, as in editsDiff.
  const finalBalance = new Map<bigint, bigint>();
  for (const e of edits) if (e.balance !== undefined) finalBalance.set(bytesToBigint(e.address), e.balance);
  let net = 0n;
  for (const [address, balance] of finalBalance) net += balance - (reader.account(address)?.balance ?? 0n);
  if (net === 0n) return edits;
  const delta = supplyDelta({ get: (address, slot) => reader.storage(address, slot) }) + net;
  const bank = padLeft(bigintToBytes(BANK_ADDRESS), 20);
  return [...edits, { address: bank, storage: [[word(SUPPLY_DELTA_STORAGE_SLOT), word(supplyDeltaWord(delta))]] }];
}
