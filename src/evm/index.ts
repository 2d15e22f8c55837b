// Kestrel's EVM: the entry points the app, the state-test runner and the fuzzer call. Synchronous after
// initEngine(). See types.ts for the contract.
import type { Address, BlockEnv, ExecOptions, Fork, Precompile, Tx, TxOutcome, TxResult } from './types.ts';
import { WorldState } from './state/world.ts';
import { initKeccak } from './keccak.ts';
import { runTransaction } from './handler/execute.ts';
import { runSystemCall } from './handler/system.ts';
import { interimPrecompiles } from './precompiles-interim.ts';

export type * from './types.ts';
export { WorldState } from './state/world.ts';
export { blobBaseFee } from './handler/fees.ts';
export { BEACON_ROOTS_ADDRESS, HISTORY_STORAGE_ADDRESS, SYSTEM_ADDRESS } from './handler/system.ts';

const tables = new Map<Fork, ReadonlyMap<Address, Precompile>>();

function precompiles(fork: Fork): ReadonlyMap<Address, Precompile> {
  let t = tables.get(fork);
  if (t === undefined) {
    t = interimPrecompiles(fork);
    tables.set(fork, t);
  }
  return t;
}

/** One-time async setup (the WebAssembly keccak, the precompiles' libraries). */
export async function initEngine(): Promise<void> {
  await initKeccak();
}

/** Runs one transaction on `world` (see types.ts for the rules applied). */
export function executeTransaction(world: WorldState, block: BlockEnv, tx: Tx, opts: ExecOptions): TxOutcome {
  return runTransaction(world, block, tx, opts, precompiles(opts.fork));
}

/** A block-level system call (EIP-4788 beacon root, EIP-2935 history storage) from SYSTEM_ADDRESS. */
export function systemCall(world: WorldState, block: BlockEnv, to: Address, input: Uint8Array, fork: Fork): TxResult {
  return runSystemCall(world, block, to, input, fork, precompiles(fork));
}
