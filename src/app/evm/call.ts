// eth_call and eth_estimateGas: run a message on a throw-away copy of a block's state, exactly as a transaction
// would run (intrinsic gas, warm sets, refunds), bounded by the gas cap and the EVM timeout.
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, createZeroAddress } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { createVM, runTx } from './vm.ts';
import { LRUCache } from 'lru-cache';
import { ExecutionError, RevertError } from '../../errors/index.ts';
import type { CallRequest } from '../../primitives/callRequest.ts';
import { bareHex, hexToBytes } from '../../primitives/hex.ts';
import type { BlockOverrides, CallOverrides } from '../../primitives/overrides.ts';
import { contextHeader, contextOf } from '../block.ts';
import type { BlockRecord } from '../../store/records.ts';
import { RootReads } from '../state/rootReads.ts';
import type { StateDb } from '../state/stateDb.ts';
import { blockHashSource } from './blockHashes.ts';
import { CallTimeout, isCallTimeout, runTxRefusalOf } from './ethereumjs.ts';
import {
  livePrecompiles,
  movePrecompiles,
  overrideContext,
  planOverrides,
  writeAccountOverrides,
  type OverridePlan,
} from './overrides.ts';
import { buildAccessList, type AccessListResult } from './accessList.ts';
import { simulate, type SimBlockResult, type SimulateOptions } from './simulate/simulator.ts';
import { decodeRevertReason } from './revert.ts';

/** EIP-3860's limit on init code (2 × the 24576-byte code limit). */
const MAX_INITCODE_SIZE = 49152;

/** Limits applied to every call. */
export interface CallLimits {
  gasCap: bigint;
  timeoutMs: number;
}

/**
 * Lets a tracer watch one call (debug_traceCall). attach() runs on the fresh VM before execution, finish() after
 * it while the call's state is still in place; with a hook the tracer enforces its own deadline.
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

/** A VM on a state manager at one state root; every call checkpoints and reverts, so it can run the next one. */
interface CallContext {
  root: string;
  /** Archive reads shared by the contexts at this root. */
  reads: RootReads;
  state: MerkleStateManager;
  vm: VM;
  clock: CallClock;
  /** Set when runTx threw: the VM may have stopped mid-transaction, so the context is not reused. */
  broken: boolean;
  /** The context block of the last call, with what it was built from. */
  lastBlock?: { record: BlockRecord; gas: bigint; priced: boolean; block: Block };
  /** State overrides of the request this (unpooled) context serves; its VM's precompiles are already moved. */
  plan?: OverridePlan;
  /** Block overrides of that request. */
  blockOverrides?: BlockOverrides;
}

/** What the call service keeps for one state root. */
interface PooledRoot {
  idle: CallContext[];
  reads: RootReads;
}

/** Idle contexts kept per state root; more concurrent calls than this build (and then drop) extra ones. */
const IDLE_CONTEXTS_PER_ROOT = 4;
/** State roots whose contexts are kept (the head, and the one before it while a block commits). */
const POOLED_ROOTS = 2;

/** Runs calls and gas estimations against historical state. */
export class CallService {
  /**
   * Idle call contexts and shared archive reads by state root, most recently used root last. Building a VM
   * (opcode tables, a Common) and warming a state manager's caches cost far more than a typical eth_call, so
   * contexts are reused across calls.
   */
  private readonly roots = new LRUCache<string, PooledRoot>({ max: POOLED_ROOTS });

  constructor(
    private readonly common: Common,
    private readonly vmCommon: () => Common,
    private readonly state: StateDb,
    private readonly hashOf: (n: bigint) => Uint8Array | undefined,
    private readonly limits: CallLimits,
  ) {}

  /** The gas cap calls run with (tracer workers run debug_traceCall with the same cap). */
  get gasCap(): bigint {
    return this.limits.gasCap;
  }

  private buildTx(req: CallRequest, gas: bigint, nonce: bigint): TypedTransaction {
    const data = req.data ?? new Uint8Array(0);
    const base = { to: req.to, value: req.value ?? 0n, data, gasLimit: gas, nonce };
    let tx: TypedTransaction;
    if (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined) {
      const maxFeePerGas = req.maxFeePerGas ?? req.maxPriorityFeePerGas ?? 0n;
      tx = createTx(
        {
          ...base,
          type: 2,
          maxFeePerGas,
          maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
          accessList: req.accessList?.map((a) => [a.address, a.storageKeys]) as never,
        },
        { common: this.common, freeze: false },
      );
    } else if (req.accessList) {
      tx = createTx(
        {
          ...base,
          type: 1,
          gasPrice: req.gasPrice ?? 0n,
          accessList: req.accessList.map((a) => [a.address, a.storageKeys]) as never,
        },
        { common: this.common, freeze: false },
      );
    } else {
      tx = createTx({ ...base, type: 0, gasPrice: req.gasPrice ?? 0n }, { common: this.common, freeze: false });
    }
    const from = req.from ? new Address(req.from) : createZeroAddress();
    // Impersonation: the message runs as `from` without a signature, as geth's eth_call does.
    (tx as unknown as { getSenderAddress: () => Address }).getSenderAddress = () => from;
    return tx;
  }

  private async newContext(root: string, reads: RootReads, overrides?: CallOverrides): Promise<CallContext> {
    const state = this.state.callState(reads);
    const vm = await createVM({
      common: this.vmCommon(),
      stateManager: state,
      blockchain: blockHashSource(this.hashOf),
    });
    const clock = { deadline: 0 };
    armDeadline(vm, clock);
    const ctx: CallContext = { root, reads, state, vm, clock, broken: false };
    if (overrides) {
      // The VM's own precompile table (a fresh Map per EVM), keyed by address hex without 0x.
      const table = livePrecompiles(vm.evm);
      ctx.plan = planOverrides(
        overrides.state,
        [...table.keys()].map((k) => hexToBytes('0x' + k)),
      );
      movePrecompiles(table, ctx.plan.precompiles);
      ctx.blockOverrides = overrides.block;
    }
    return ctx;
  }

  /** True when a request changes state or block: it then runs on a context of its own, never pooled. */
  private static overridden(o: CallOverrides | undefined): o is CallOverrides {
    return o !== undefined && (o.state !== undefined || o.block !== undefined);
  }

  /** The pool entry of a state root (created, and the least recently used root dropped, as needed). */
  private pooled(block: BlockRecord): { root: string; entry: PooledRoot } {
    const root = bareHex(block.header.stateRoot);
    let entry = this.roots.get(root);
    if (!entry) {
      entry = { idle: [], reads: new RootReads(block.header.stateRoot) };
      this.roots.set(root, entry);
    }
    return { root, entry };
  }

  /** An idle context at the block's state root, or a new one. */
  private async acquire(block: BlockRecord): Promise<CallContext> {
    const { root, entry } = this.pooled(block);
    return entry.idle.pop() ?? this.newContext(root, entry.reads);
  }

  /** Returns a context whose last call ended normally (a thrown runTx may leave the VM mid-transaction: dropped). */
  private release(ctx: CallContext): void {
    // A root dropped from the pool while the call ran is not brought back.
    const entry = this.roots.get(ctx.root);
    if (entry && entry.idle.length < IDLE_CONTEXTS_PER_ROOT) entry.idle.push(ctx);
  }

  /**
   * Runs `fn` with a pooled context at the block's state; it goes back to the pool unless a runTx threw. A request
   * with overrides gets a context of its own (its VM's precompiles may have moved), sharing the root's reads.
   */
  private async withContext<T>(
    block: BlockRecord,
    overrides: CallOverrides | undefined,
    fn: (ctx: CallContext) => Promise<T>,
  ): Promise<T> {
    if (CallService.overridden(overrides)) {
      const { root, entry } = this.pooled(block);
      return fn(await this.newContext(root, entry.reads, overrides));
    }
    const ctx = await this.acquire(block);
    try {
      return await fn(ctx);
    } finally {
      if (!ctx.broken) this.release(ctx);
    }
  }

  /**
   * The block a call runs in: the real block's context with the gas limit raised to the call's gas and, for an
   * unpriced call, a zero base fee (geth's rule, so it needs no funds for gas). runTx only reads it, so the
   * context keeps the last one and reuses it while block, gas and pricing repeat (building a header costs more
   * than a small call's execution).
   */
  private contextBlock(ctx: CallContext, block: BlockRecord, gas: bigint, priced: boolean): Block {
    const last = ctx.lastBlock;
    if (last !== undefined && last.record === block && last.gas === gas && last.priced === priced) return last.block;
    const o = ctx.blockOverrides;
    const base = overrideContext(contextOf(block.header), o);
    const header = contextHeader(
      { ...base, gasLimit: base.gasLimit > gas ? base.gasLimit : gas, baseFeePerGas: priced ? base.baseFeePerGas : 0n },
      this.common,
    );
    const blobFee = o?.blobBaseFee;
    // createBlock copies the header; an unfrozen copy lets the blob base fee override in (see below).
    const built = createBlock({ header }, { common: this.common, setHardfork: false, freeze: blobFee === undefined });
    // The header has no blob base fee field: BLOBBASEFEE reads it through this method (0 for an unpriced call).
    if (blobFee !== undefined) built.header.getBlobGasPrice = () => (priced ? blobFee : 0n);
    ctx.lastBlock = { record: block, gas, priced, block: built };
    return built;
  }

  /** Executes once on a checkpoint of the context's state (reverted afterwards); returns the raw runTx result. */
  private async execute(
    req: CallRequest,
    block: BlockRecord,
    gas: bigint,
    ctx: CallContext,
    hook?: CallHook,
    reportAccessList = false,
  ): Promise<RunTxResult> {
    // An estimation goes on after a probe that threw; it continues on a fresh VM and state (same overrides).
    if (ctx.broken) {
      // The fresh context has no plan of its own: the request's plan and block overrides stay on `ctx`.
      Object.assign(ctx, await this.newContext(ctx.root, ctx.reads));
      if (ctx.plan) movePrecompiles(livePrecompiles(ctx.vm.evm), ctx.plan.precompiles);
    }
    const { state, vm } = ctx;
    const from = req.from ? new Address(req.from) : createZeroAddress();
    // Reads made before the checkpoint stay in the state's caches after the revert, so a pooled context answers
    // them from memory next time; the sender, the callee and the coinbase are read by every call.
    let nonce = (await state.getAccount(from))?.nonce ?? 0n;
    if (req.to) await state.getAccount(new Address(req.to));
    await state.getAccount(block.header.coinbase);
    // ethereumjs refuses to build such a creation at all; geth runs into the same rule with this text.
    const size = req.data?.length ?? 0;
    if (req.to === undefined && size > MAX_INITCODE_SIZE) {
      throw new ExecutionError(`max initcode size exceeded: code size ${size} limit ${MAX_INITCODE_SIZE}`);
    }
    const priced = req.gasPrice !== undefined || req.maxFeePerGas !== undefined;
    const ctxBlock = this.contextBlock(ctx, block, gas, priced);
    // With a hook the tracer enforces its own deadline.
    ctx.clock.deadline = this.limits.timeoutMs > 0 && !hook ? Date.now() + this.limits.timeoutMs : 0;
    await state.checkpoint();
    try {
      // Overrides are written inside the call's checkpoint, so its revert takes them away with the call's writes.
      if (ctx.plan) {
        await writeAccountOverrides(state, ctx.plan.accounts);
        nonce = (await state.getAccount(from))?.nonce ?? 0n;
      }
      const tx = this.buildTx(req, gas, nonce);
      hook?.attach(vm, state, tx, ctxBlock);
      const r = await runTx(vm, {
        tx,
        block: ctxBlock,
        skipNonce: true,
        skipBalance: !priced,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList,
      });
      hook?.finish(r);
      return r;
    } catch (e) {
      ctx.broken = true;
      if (hook?.failure) throw hook.failure;
      if (isCallTimeout(e)) {
        throw new ExecutionError(`execution aborted (timeout = ${this.limits.timeoutMs / 1000}s)`);
      }
      throw translateRunTxError(e);
    } finally {
      ctx.clock.deadline = 0;
      hook?.detach();
      await state.revert();
    }
  }

  private capGas(req: CallRequest): bigint {
    const cap = this.limits.gasCap > 0n ? this.limits.gasCap : 2n ** 63n;
    return req.gas !== undefined && req.gas > 0n && req.gas < cap ? req.gas : cap;
  }

  /** debug_traceCall: runs the call under `hook`; a failing call is a result here, not an error. */
  async traceCall(
    req: CallRequest,
    block: BlockRecord,
    hook: CallHook,
    overrides?: CallOverrides,
  ): Promise<RunTxResult> {
    // A context of its own: the tracer attaches listeners to the VM.
    const ctx = await this.newContext(
      '',
      new RootReads(block.header.stateRoot),
      CallService.overridden(overrides) ? overrides : undefined,
    );
    return this.execute(req, block, this.capGas(req), ctx, hook);
  }

  /** eth_call: the return data, or RevertError / ExecutionError. */
  async call(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): Promise<Uint8Array> {
    const r = await this.withContext(block, overrides, (ctx) => this.execute(req, block, this.capGas(req), ctx));
    const err = r.execResult.exceptionError;
    if (err) throw failure(err.error, r.execResult.returnValue);
    return r.execResult.returnValue;
  }

  /** eth_simulateV1: simulated blocks on top of `base` (the gas cap bounds all calls together). */
  async simulate(opts: SimulateOptions, base: BlockRecord): Promise<SimBlockResult[]> {
    const deps = { common: this.common, vmCommon: this.vmCommon, state: this.state, hashOf: this.hashOf };
    return simulate({ ...deps, gasCap: this.limits.gasCap, timeoutMs: this.limits.timeoutMs }, opts, base);
  }

  /** eth_createAccessList: the list the call touches (run until stable), its gas, and its failure if any. */
  async createAccessList(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): Promise<AccessListResult> {
    return this.withContext(block, overrides, (ctx) =>
      buildAccessList(req, {
        run: (r) => this.execute(r, block, this.capGas(r), ctx, undefined, true),
        precompiles: () =>
          [...(ctx.vm.evm.precompiles as Map<string, unknown>).keys()].map((k) => hexToBytes('0x' + k)),
        nonce: async () => {
          const from = req.from ?? new Uint8Array(20);
          const over = ctx.plan?.accounts.find((a) => a.address.every((b, i) => b === from[i]))?.nonce;
          return over ?? (await ctx.state.getAccount(new Address(from)))?.nonce ?? 0n;
        },
      }),
    );
  }

  /** eth_estimateGas: the smallest gas limit with which the message succeeds (binary search, as geth). */
  async estimateGas(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): Promise<bigint> {
    return this.withContext(block, overrides, (ctx) => this.search(req, block, ctx));
  }

  private async search(req: CallRequest, block: BlockRecord, ctx: CallContext): Promise<bigint> {
    let hi =
      req.gas !== undefined && req.gas >= 21000n ? req.gas : (ctx.blockOverrides?.gasLimit ?? block.header.gasLimit);
    if (this.limits.gasCap > 0n && hi > this.limits.gasCap) hi = this.limits.gasCap;
    // A plain value transfer to an account without code costs exactly 21000 (geth's shortcut).
    // (A success at 21000 is the answer whatever the code: no call costs less. With overrides the code read
    // here would predate them, so the probe alone decides.)
    if (req.to && (req.data === undefined || req.data.length === 0) && !req.accessList?.length) {
      const code = ctx.plan?.accounts.length ? new Uint8Array(0) : await ctx.state.getCode(new Address(req.to));
      if (code.length === 0) {
        const probe = await this.execute(req, block, 21000n, ctx);
        if (!probe.execResult.exceptionError) return 21000n;
      }
    }
    const first = await this.execute(req, block, hi, ctx);
    if (first.execResult.exceptionError) {
      const e = first.execResult.exceptionError.error;
      if (e === 'revert') throw failure(e, first.execResult.returnValue);
      throw new ExecutionError(e.includes('out of gas') ? `gas required exceeds allowance (${hi})` : e);
    }
    const ok = async (gas: bigint): Promise<boolean> => {
      try {
        return !(await this.execute(req, block, gas, ctx)).execResult.exceptionError;
      } catch {
        return false;
      }
    };
    const used = first.totalGasSpent;
    let lo = used - 1n;
    // Most calls succeed with the gas they used plus refunds and the 63/64 reserve; try that first.
    const optimistic = ((used + first.gasRefund + 2300n) * 64n) / 63n;
    if (optimistic < hi && (await ok(optimistic))) hi = optimistic;
    while (lo + 1n < hi) {
      if ((hi - lo) * 1000n < hi * 15n) break; // within 1.5%, geth's estimate tolerance
      const mid = (lo + hi) / 2n;
      if (await ok(mid)) hi = mid;
      else lo = mid;
    }
    return hi;
  }
}

function failure(error: string, data: Uint8Array): Error {
  if (error === 'revert') return new RevertError(data, decodeRevertReason(data));
  return new ExecutionError(error);
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
