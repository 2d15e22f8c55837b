// Re-executes a sealed block's transactions on its parent's state, exactly as the block executor ran them (same
// block context, same runTx options, same cumulative gas), and traces the ones asked for.
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { createVM, runTx } from '../app/evm/vm.ts';
import { contextHeader, contextOf } from '../app/block.ts';
import type { BlockRecord } from '../store/records.ts';
import { blockHashSource } from '../app/evm/blockHashes.ts';
import { effectiveGasPrice } from '../app/evm/executor.ts';
import { installStepFeed, type StepFeed } from '../app/evm/stepFeed.ts';
import type { StateDb } from '../app/state/stateDb.ts';
import { ExecutionError } from '../errors/index.ts';
import { TraceDriver } from './driver.ts';
import { gethErrorText } from './errors.ts';
import { CachedSyncState, type NodeReader } from './syncState.ts';
import type { Tracer, TraceResult, TxEnv, TxOutcome } from './types.ts';

/** What replaying needs from the node. */
export interface ReplayDeps {
  common: Common;
  vmCommon: () => Common;
  state: StateDb;
  hashOf: (n: bigint) => Uint8Array | undefined;
  readNode: NodeReader;
}

/** A tracer made for one transaction, with the deadline it must honour; close() frees its resources. */
export interface TracerHandle {
  tracer: Tracer;
  close(): void;
}

/** Creates the tracer for one transaction (deadline in epoch ms, 0 = none). */
export type TracerFactory = (deadline: number) => Promise<TracerHandle>;

/** The VM's EVM (createVM always builds the concrete class). */
export function evmOf(vm: VM): EVM {
  return vm.evm as EVM;
}

/** The outcome of a runTx, in tracer terms. */
export function outcomeOf(r: RunTxResult): TxOutcome {
  const err = r.execResult.exceptionError?.error;
  return {
    gasUsed: r.totalGasSpent,
    failed: err !== undefined,
    returnValue: r.execResult.returnValue,
    error: err === undefined ? undefined : gethErrorText(err),
    createdAddress: r.createdAddress?.bytes,
  };
}

/** The environment a tracer sees for `tx` run by `vm` in `block`. */
export function txEnv(
  vm: VM,
  sm: MerkleStateManager,
  readNode: NodeReader,
  tx: TypedTransaction,
  from: Uint8Array,
  block: Block,
  gasPrice: bigint,
): TxEnv {
  const h = block.header;
  return {
    from,
    to: tx.to?.bytes,
    value: tx.value,
    input: tx.data,
    gasLimit: tx.gasLimit,
    gasPrice,
    intrinsicGas: tx.getIntrinsicGas(),
    blockNumber: h.number,
    timestamp: h.timestamp,
    coinbase: h.coinbase.bytes,
    state: new CachedSyncState(sm, readNode),
    isPrecompile: (a) => evmOf(vm).getPrecompile(new Address(a)) !== undefined,
  };
}

/** Runs one transaction under a tracer; the tracer's own failure wins over the EVM's unwinding error. */
export async function runTraced(
  vm: VM,
  feed: StepFeed | undefined,
  tx: TypedTransaction,
  block: Block,
  blockGasUsed: bigint,
  env: TxEnv,
  handle: TracerHandle,
  deadline: number,
): Promise<{ r: RunTxResult; result: TraceResult }> {
  const driver = new TraceDriver(evmOf(vm), handle.tracer, env, deadline);
  driver.attach(feed);
  try {
    let r: RunTxResult;
    try {
      r = await runTx(vm, { tx, block, blockGasUsed, skipHardForkValidation: true });
    } catch (e) {
      throw driver.failure ?? new ExecutionError(`replay failed: ${(e as Error)?.message ?? String(e)}`);
    }
    driver.finish(outcomeOf(r));
    return { r, result: handle.tracer.result() };
  } finally {
    driver.detach();
  }
}

/** One replay of a block: a VM on a private copy of the parent's state, advanced one transaction at a time. */
export class BlockReplay {
  private vm?: VM;
  private feed?: StepFeed;
  private sm?: MerkleStateManager;
  private next = 0;
  private gasUsed = 0n;
  private readonly ctxBlock: Block;

  constructor(
    private readonly deps: ReplayDeps,
    private readonly block: BlockRecord,
    private readonly parentRoot: Uint8Array,
  ) {
    const header = contextHeader(contextOf(block.header), deps.common);
    this.ctxBlock = createBlock({ header }, { common: deps.common, setHardfork: false });
  }

  /** (Re)starts from the parent's state. */
  private async reset(): Promise<void> {
    const sm = this.deps.state.executionState(this.parentRoot);
    // Held for the whole replay: every write stays in the state manager's caches, where CachedSyncState sees it.
    await sm.checkpoint();
    this.sm = sm;
    this.vm = await createVM({
      common: this.deps.vmCommon(),
      stateManager: sm,
      blockchain: blockHashSource(this.deps.hashOf),
    });
    this.feed = installStepFeed(evmOf(this.vm));
    this.next = 0;
    this.gasUsed = 0n;
  }

  /** Runs transactions without tracing up to (excluding) `index`. */
  async advanceTo(index: number): Promise<void> {
    if (!this.vm || this.next > index) await this.reset();
    while (this.next < index) {
      const tx = this.block.txs[this.next]!;
      let r: RunTxResult;
      try {
        r = await runTx(this.vm!, {
          tx,
          block: this.ctxBlock,
          blockGasUsed: this.gasUsed,
          skipHardForkValidation: true,
        });
      } catch (e) {
        throw new ExecutionError(`replay of transaction ${this.next} failed: ${(e as Error)?.message ?? String(e)}`);
      }
      this.gasUsed = r.receipt.cumulativeBlockGasUsed;
      this.next++;
    }
  }

  /**
   * Traces transaction `index` (running its predecessors first). After a tracer failure the EVM's state is not
   * trustworthy, so the next call starts over from the parent's state.
   */
  async trace(index: number, makeTracer: TracerFactory, timeoutMs: number): Promise<TraceResult> {
    await this.advanceTo(index);
    const vm = this.vm!;
    const tx = this.block.txs[index]!;
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : 0;
    const handle = await makeTracer(deadline);
    const env = txEnv(
      vm,
      this.sm!,
      this.deps.readNode,
      tx,
      this.block.senders[index]!,
      this.ctxBlock,
      effectiveGasPrice(tx, this.ctxBlock.header.baseFeePerGas ?? 0n),
    );
    env.blockHash = this.block.hash;
    env.txIndex = index;
    env.txHash = this.block.txHashes[index];
    try {
      const { r, result } = await runTraced(vm, this.feed, tx, this.ctxBlock, this.gasUsed, env, handle, deadline);
      this.gasUsed = r.receipt.cumulativeBlockGasUsed;
      this.next++;
      return result;
    } catch (e) {
      this.vm = undefined;
      throw e;
    } finally {
      handle.close();
    }
  }
}
