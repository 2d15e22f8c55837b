// @ethereumjs/vm's entry points, loaded on first use: the VM, the EVM and the curve libraries of its precompiles
// (noble's BLS12-381 and BN254, set up when their modules load) are ~20 ms of startup CPU that the node's listeners
// do not need; they load with the first transaction, call or trace. After that the module cache answers at once.
import type { RunTxOpts, RunTxResult, VM, VMOpts } from '@ethereumjs/vm';

/** @ethereumjs/vm's createVM, loaded on first use. */
export async function createVM(opts: VMOpts): Promise<VM> {
  return (await import('@ethereumjs/vm')).createVM(opts);
}

/** @ethereumjs/vm's runTx, loaded on first use. */
export async function runTx(vm: VM, opts: RunTxOpts): Promise<RunTxResult> {
  return (await import('@ethereumjs/vm')).runTx(vm, opts);
}
