// Kestrel's EVM: the entry points the app, the state-test runner and the fuzzer call. Synchronous after
// initEngine(). See types.ts for the contract.
import type { Address, BlockEnv, ExecOptions, Fork, Tx, TxOutcome, TxResult } from './types.ts';
import { WorldState } from './state/world.ts';
import { initKeccak } from '../primitives/keccak.ts';
import { runTransaction } from './handler/execute.ts';
import { runSystemCall } from './handler/system.ts';
import { initPrecompileMaps, initPrecompiles, precompilesFor } from './precompiles/index.ts';

export type * from './types.ts';
export { WorldState } from './state/world.ts';
export { ExecutionAborted } from './deadline.ts';
export { precompilesFor } from './precompiles/index.ts';
export { intrinsicGas } from './handler/intrinsic.ts';
export { blobBaseFee, GAS_PER_BLOB, MIN_BLOB_BASE_FEE, nextExcessBlobGas, type BlobParent } from './handler/fees.ts';
export { FORKS, forkRules, LAST_PRECOMPILE, type ForkRules } from './forks.ts';
export { Op, OPCODE_NAMES, STACK_OUT } from './interpreter/opcodes.ts';
export { CALL_STIPEND } from './interpreter/gas.ts';
export { BEACON_ROOTS_ADDRESS, HISTORY_STORAGE_ADDRESS, SYSTEM_ADDRESS } from './handler/system.ts';

let initializing: Promise<void> | undefined;
let initialized = false;

/** One-time async setup (the WebAssembly keccak, the precompiles' libraries); every call shares the first one's. */
export function initEngine(): Promise<void> {
  initializing ??= Promise.all([initKeccak(), initPrecompiles()]).then(() => {
    initialized = true;
  });
  return initializing;
}

let systemInitializing: Promise<void> | undefined;

/**
 * The setup {@link systemCall} needs: {@link initEngine}'s without the pairing curves' WebAssembly (~400 ms of CPU),
 * which a system contract never calls. A fresh chain seals its empty first block after this, before it answers;
 * {@link executeTransaction} and every other entry point still need {@link initEngine}.
 */
export function initEngineForSystemCalls(): Promise<void> {
  systemInitializing ??= Promise.all([initKeccak(), initPrecompileMaps()]).then(() => {});
  return systemInitializing;
}

/** True once {@link initEngine} has completed, so the synchronous entry points may run. */
export function engineReady(): boolean {
  return initialized;
}

/** Runs one transaction on `world` (see types.ts for the rules applied). */
export function executeTransaction(world: WorldState, block: BlockEnv, tx: Tx, opts: ExecOptions): TxOutcome {
  return runTransaction(world, block, tx, opts, opts.precompiles ?? precompilesFor(opts.fork));
}

/** A block-level system call (EIP-4788 beacon root, EIP-2935 history storage) from SYSTEM_ADDRESS. */
export function systemCall(world: WorldState, block: BlockEnv, to: Address, input: Uint8Array, fork: Fork): TxResult {
  return runSystemCall(world, block, to, input, fork, precompilesFor(fork));
}
