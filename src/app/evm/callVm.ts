// debug_traceCall's run of a call on @ethereumjs/vm (and the deadline eth_simulateV1 arms on its VMs): the tracers (struct logger, call tracer, JS tracers) attach to
// an ethereumjs VM, so a traced call still runs there, exactly as a transaction would (intrinsic gas, warm sets,
// refunds), on a throw-away checkpoint of the block's state. eth_call and eth_estimateGas run on Kestrel's engine
// (call.ts).
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, createZeroAddress } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { ExecutionError } from '../../errors/index.ts';
import type { CallRequest } from '../../primitives/callRequest.ts';
import { hexToBytes } from '../../primitives/hex.ts';
import type { CallOverrides } from '../../primitives/overrides.ts';
import type { BlockRecord } from '../../store/records.ts';
import { contextHeader, contextOf } from '../block.ts';
import { RootReads } from '../state/rootReads.ts';
import type { StateDb } from '../state/stateDb.ts';
import { blockHashSource } from './blockHashes.ts';
import { CallTimeout, runTxRefusalOf } from './ethereumjs.ts';
import { createVM, runTx } from './vm.ts';
import {
  livePrecompiles,
  movePrecompiles,
  overrideContext,
  planOverrides,
  writeAccountOverrides,
} from './overrides.ts';

/** EIP-3860's limit on init code (2 × the 24576-byte code limit). */
export const MAX_INITCODE_SIZE = 49152;

/**
 * Lets a tracer watch one call (debug_traceCall). attach() runs on the fresh VM before execution, finish() after
 * it while the call's state is still in place; the tracer enforces its own deadline.
 */
export interface CallHook {
  attach(vm: VM, state: MerkleStateManager, tx: TypedTransaction, block: Block): void;
  finish(result: RunTxResult): void;
  detach(): void;
  /** The tracer's own failure, if it aborted the execution. */
  readonly failure: Error | undefined;
}

type OpEntry = { opHandler: (runState: unknown, common: unknown) => unknown };

/** The deadline of the call a context is running (0 = none); set before each call, read by the armed checks. */
export interface CallClock {
  deadline: number;
}

/**
 * Bounds a call's wall time without a per-opcode `step` listener (ethereumjs copies the whole EVM memory into every
 * step event, which made memory-heavy calls crawl). Every loop in EVM code passes through JUMP or JUMPI, and every
 * frame through a message, so the deadline is checked there. The opcode table is per EVM instance (built by
 * getOpcodesForHF for each EVM), so wrapping its entries touches no other VM. Armed once per VM; each call sets
 * `clock.deadline`.
 */
export function armDeadline(vm: VM, clock: CallClock): void {
  const check = (): void => {
    if (clock.deadline !== 0 && Date.now() > clock.deadline) throw new CallTimeout();
  };
  vm.evm.events!.on('beforeMessage', check);
  const map = (vm.evm as unknown as { _opcodeMap?: OpEntry[] })._opcodeMap;
  if (!Array.isArray(map) || typeof map[0x56]?.opHandler !== 'function' || typeof map[0x57]?.opHandler !== 'function') {
    // Library internals changed: fall back to the (slower) step hook rather than lose the timeout.
    let steps = 0;
    vm.evm.events!.on('step', () => {
      if ((++steps & 1023) === 0) check();
    });
    return;
  }
  let jumps = 0;
  for (const op of [0x56, 0x57]) {
    const entry = map[op]!;
    const handler = entry.opHandler;
    map[op] = {
      ...entry,
      opHandler: (runState, common) => {
        if ((++jumps & 255) === 0) check();
        return handler(runState, common);
      },
    };
  }
}

/** geth's refusal of a creation whose init code exceeds EIP-3860's limit (checked before anything else). */
export function checkInitcode(req: CallRequest): void {
  const size = req.data?.length ?? 0;
  if (req.to === undefined && size > MAX_INITCODE_SIZE) {
    throw new ExecutionError(`max initcode size exceeded: code size ${size} limit ${MAX_INITCODE_SIZE}`);
  }
}

/** An ethereumjs transaction of a call request, impersonating `from` (no signature, as geth's eth_call). */
function buildTx(common: Common, req: CallRequest, gas: bigint, nonce: bigint): TypedTransaction {
  const data = req.data ?? new Uint8Array(0);
  const base = { to: req.to, value: req.value ?? 0n, data, gasLimit: gas, nonce };
  const accessList = req.accessList?.map((a) => [a.address, a.storageKeys]) as never;
  let tx: TypedTransaction;
  if (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined) {
    const maxFeePerGas = req.maxFeePerGas ?? req.maxPriorityFeePerGas ?? 0n;
    const tip = req.maxPriorityFeePerGas ?? 0n;
    tx = createTx({ ...base, type: 2, maxFeePerGas, maxPriorityFeePerGas: tip, accessList }, { common, freeze: false });
  } else if (req.accessList) {
    tx = createTx({ ...base, type: 1, gasPrice: req.gasPrice ?? 0n, accessList }, { common, freeze: false });
  } else {
    tx = createTx({ ...base, type: 0, gasPrice: req.gasPrice ?? 0n }, { common, freeze: false });
  }
  const from = req.from ? new Address(req.from) : createZeroAddress();
  (tx as unknown as { getSenderAddress: () => Address }).getSenderAddress = () => from;
  return tx;
}

/** Runs one traced call on a fresh ethereumjs VM at the block's state; a failing call is a result, not an error. */
export async function traceCallOnVm(
  deps: { common: Common; vmCommon: () => Common; state: StateDb; hashOf: (n: bigint) => Uint8Array | undefined },
  req: CallRequest,
  block: BlockRecord,
  gas: bigint,
  hook: CallHook,
  overrides: CallOverrides | undefined,
): Promise<RunTxResult> {
  const state = deps.state.callState(new RootReads(block.header.stateRoot));
  const vm = await createVM({ common: deps.vmCommon(), stateManager: state, blockchain: blockHashSource(deps.hashOf) });
  // The VM's own precompile table (a fresh Map per EVM), keyed by address hex without 0x.
  const table = livePrecompiles(vm.evm);
  const plan = planOverrides(
    overrides?.state,
    [...table.keys()].map((k) => hexToBytes('0x' + k)),
  );
  movePrecompiles(table, plan.precompiles);
  checkInitcode(req);
  const priced = req.gasPrice !== undefined || req.maxFeePerGas !== undefined;
  const o = overrides?.block;
  const ctx = overrideContext(contextOf(block.header), o);
  const header = contextHeader(
    { ...ctx, gasLimit: ctx.gasLimit > gas ? ctx.gasLimit : gas, baseFeePerGas: priced ? ctx.baseFeePerGas : 0n },
    deps.common,
  );
  const blobFee = o?.blobBaseFee;
  // createBlock copies the header; an unfrozen copy lets the blob base fee override in (the header has no such field:
  // BLOBBASEFEE reads it through getBlobGasPrice, 0 for an unpriced call).
  const ctxBlock = createBlock({ header }, { common: deps.common, setHardfork: false, freeze: blobFee === undefined });
  if (blobFee !== undefined) ctxBlock.header.getBlobGasPrice = () => (priced ? blobFee : 0n);
  const from = new Address(req.from ?? new Uint8Array(20));
  await state.checkpoint();
  try {
    await writeAccountOverrides(state, plan.accounts);
    const nonce = (await state.getAccount(from))?.nonce ?? 0n;
    const tx = buildTx(deps.common, req, gas, nonce);
    hook.attach(vm, state, tx, ctxBlock);
    const r = await runTx(vm, {
      tx,
      block: ctxBlock,
      skipNonce: true,
      skipBalance: !priced,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    });
    hook.finish(r);
    return r;
  } catch (e) {
    if (hook.failure) throw hook.failure;
    throw translateRunTxError(e);
  } finally {
    hook.detach();
    await state.revert();
  }
}

/** Maps runTx's pre-execution errors to geth's wording. */
function translateRunTxError(e: unknown): Error {
  const refusal = runTxRefusalOf(e);
  switch (refusal.reason) {
    case 'intrinsicGas':
      return new ExecutionError(`intrinsic gas too low: ${refusal.text}`);
    case 'insufficientFunds':
      return new ExecutionError('insufficient funds for gas * price + value');
    case 'feeCapBelowBaseFee':
      return new ExecutionError('max fee per gas less than block base fee');
    case 'other':
      return new ExecutionError(refusal.text);
  }
}
