// What the modules run on: the state (slots and balances of the running transaction or block), the block's height
// and time, the parameters, and where events go. One Env per use; the keepers hold no state of their own.
import { createHash } from 'node:crypto';
import { bytesToBigint } from '../../primitives/hex.ts';
import { KestrelError } from '../../errors/index.ts';
import type { Slots } from './store.ts';
import type { StakingParams } from './types.ts';

/** A refused module operation: its message is the revert reason a precompile returns. */
export class ModuleError extends KestrelError {}

/** The state a module reads and writes. */
export interface ModuleState extends Slots {
  balance(address: bigint): bigint;
  setBalance(address: bigint, value: bigint): void;
  /** Emits an EVM log (absent: events are dropped, e.g. in begin/end-block processing). */
  log?(address: bigint, topics: bigint[], data: Uint8Array): void;
}

/** A module's environment. */
export interface Env {
  state: ModuleState;
  params: StakingParams;
  height: bigint;
  /** Block time, unix seconds. */
  time: bigint;
}

/** A Cosmos module account's address: the first 20 bytes of sha256(name). */
export function moduleAddress(name: string): bigint {
  return bytesToBigint(createHash('sha256').update(name).digest().subarray(0, 20));
}

/** The precompile (and module storage) addresses, as Cosmos EVM numbers them. */
export const STAKING_ADDRESS = 0x800n;
export const DISTRIBUTION_ADDRESS = 0x801n;
export const BANK_ADDRESS = 0x804n;
export const SLASHING_ADDRESS = 0x806n;
export const BECH32_ADDRESS = 0x400n;

/** Module accounts that hold tokens. */
export const BONDED_POOL = moduleAddress('bonded_tokens_pool');
export const NOT_BONDED_POOL = moduleAddress('not_bonded_tokens_pool');
export const DISTRIBUTION_POOL = moduleAddress('distribution');
export const FEE_COLLECTOR = moduleAddress('fee_collector');

/** Moves `amount` from one account's balance to another's; refuses when `from` holds too little. */
export function transfer(state: ModuleState, from: bigint, to: bigint, amount: bigint): void {
  if (amount === 0n) return;
  if (amount < 0n) throw new ModuleError('negative amount');
  const have = state.balance(from);
  if (have < amount) throw new ModuleError(`insufficient funds: ${have} < ${amount}`);
  state.setBalance(from, have - amount);
  state.setBalance(to, state.balance(to) + amount);
}

/** Burns `amount` from an account (a slash): the supply shrinks with it. */
export function burn(env: Env, from: bigint, amount: bigint): void {
  if (amount === 0n) return;
  const have = env.state.balance(from);
  if (have < amount) throw new KestrelError(`module invariant broken: burn ${amount} from a pool holding ${have}`);
  env.state.setBalance(from, have - amount);
  adjustSupply(env, -amount);
}

/** Mints `amount` to an account (inflation). */
export function mint(env: Env, to: bigint, amount: bigint): void {
  if (amount === 0n) return;
  env.state.setBalance(to, env.state.balance(to) + amount);
  adjustSupply(env, amount);
}

/** The slot of the bank module's net mint-minus-burn of the EVM denom since genesis (two's complement). */
const SUPPLY_DELTA_SLOT = 0n;
const TWO_256 = 1n << 256n;

function adjustSupply(env: Env, by: bigint): void {
  env.state.set(BANK_ADDRESS, SUPPLY_DELTA_SLOT, supplyDeltaWord(supplyDelta(env.state) + by));
}

/** The slot of the supply delta (in BANK_ADDRESS's storage), for edits that write it directly. */
export const SUPPLY_DELTA_STORAGE_SLOT = SUPPLY_DELTA_SLOT;

/** A supply delta as the storage word that holds it (two's complement). */
export function supplyDeltaWord(delta: bigint): bigint {
  return delta < 0n ? delta + TWO_256 : delta;
}

/** Tokens minted minus tokens burned since genesis (the EVM denom's supply is genesis's plus this). */
export function supplyDelta(slots: Pick<Slots, 'get'>): bigint {
  const raw = slots.get(BANK_ADDRESS, SUPPLY_DELTA_SLOT);
  return raw >= 1n << 255n ? raw - TWO_256 : raw;
}
