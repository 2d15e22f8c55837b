// Re-executes a sealed block's transactions on Kestrel's engine over its parent's state, exactly as the block
// executor ran them (one WorldState for the block, the same BlockEnv, fork and fee rule), and traces the ones
// asked for.
import type { Common } from '@ethereumjs/common';
import {
  type BlockEnv,
  ExecutionAborted,
  type ExecOptions,
  executeTransaction,
  initEngine,
  intrinsicGas,
  type Tx,
  type TxInvalidReason,
  type TxResult,
  WorldState,
} from '../evm/index.ts';
import { contextOf } from '../app/block.ts';
import { ArchiveStateReader } from '../app/evm/archiveReader.ts';
import { forkReader } from '../app/fork/forkReader.ts';
import type { ForkState } from '../app/fork/forkState.ts';
import { effectiveGasPrice } from '../app/evm/executor.ts';
import { addressOf, blockEnvOf, engineFork, engineTxOf, preExecution } from '../app/evm/engineTx.ts';
import { chainPrecompiles, chainRules } from '../app/staking/chain.ts';
import type { BlockRecord } from '../store/records.ts';
import { ExecutionError } from '../errors/index.ts';
import { TraceDriver } from './driver.ts';
import { TIMEOUT_MESSAGE, TraceAbort } from './errors.ts';
import { type NodeSource, WorldSyncState } from './syncState.ts';
import type { Tracer, TraceResult, TxEnv } from './types.ts';

/** What replaying needs from the node. */
export interface ReplayDeps {
  common: Common;
  hashOf: (n: bigint) => Uint8Array | undefined;
  readNode: NodeSource;
  /** A forked chain's upstream state (the node's call service holds it). */
  calls?: { upstream: ForkState | undefined };
}

/** A tracer made for one transaction, with the deadline it must honour; close() frees its resources. */
export interface TracerHandle {
  tracer: Tracer;
  close(): void;
}

/** Creates the tracer for one transaction (deadline in epoch ms, 0 = none). */
export type TracerFactory = (deadline: number) => Promise<TracerHandle>;

/** Wall time a replay may hold the event loop before it yields (between transactions: the engine is synchronous). */
const YIELD_EVERY_MS = 20;

/** What a traced run needs besides the tracer: the engine's inputs and the tracer's view of them. */
export interface TracedRun {
  world: WorldState;
  env: BlockEnv;
  tx: Tx;
  opts: ExecOptions;
  txEnv: TxEnv;
}

/** The environment a tracer sees for `tx` run on `world` in `env` at `gasPrice`. */
export function txEnvOf(
  world: WorldState,
  env: BlockEnv,
  tx: Tx,
  opts: ExecOptions,
  gasPrice: bigint,
  fields: { from: Uint8Array; to?: Uint8Array; coinbase: Uint8Array },
): TxEnv {
  const precompiles = opts.precompiles ?? chainPrecompiles(opts.fork);
  return {
    ...fields,
    value: tx.value,
    input: tx.data,
    gasLimit: tx.gasLimit,
    gasPrice,
    intrinsicGas: intrinsicGas(tx, opts.fork).gas,
    blockNumber: env.number,
    timestamp: env.timestamp,
    state: new WorldSyncState(world),
    isPrecompile: (a) => precompiles.has(addressOf(a)),
  };
}

/**
 * Runs one transaction under a tracer and returns the engine's result and the tracer's. A tracer's throw (or the
 * deadline) unwinds the run and leaves `run.world` mid-transaction: the caller must discard it. `refuse` words an
 * invalid transaction's error.
 */
export function runTraced(
  run: TracedRun,
  tracer: Tracer,
  deadline: number,
  refuse: (reason: TxInvalidReason, message: string) => Error = (_r, message) => new ExecutionError(message),
): { r: TxResult; result: TraceResult } {
  const driver = new TraceDriver(tracer, run.txEnv);
  const opts: ExecOptions = { ...run.opts, tracer: driver, ...(deadline > 0 && { deadline }) };
  let r: TxResult;
  try {
    driver.start();
    const out = executeTransaction(run.world, run.env, run.tx, opts);
    if (!out.ok) throw refuse(out.reason, out.message);
    r = out.result;
    driver.finish(r);
    return { r, result: tracer.result() };
  } catch (e) {
    if (e instanceof ExecutionAborted) throw new TraceAbort(TIMEOUT_MESSAGE);
    if (e instanceof Error) throw e;
    throw new TraceAbort(String(e));
  }
}

/** One replay of a block: a WorldState over the parent's state, advanced one transaction at a time. */
export class BlockReplay {
  private world?: WorldState;
  private next = 0;
  private readonly env: BlockEnv;
  private readonly opts: ExecOptions;
  private readonly txs: Array<Tx | undefined> = [];

  constructor(
    private readonly deps: ReplayDeps,
    private readonly block: BlockRecord,
    private readonly parentRoot: Uint8Array,
  ) {
    this.env = blockEnvOf(contextOf(block.header), deps.common.chainId());
    this.opts = {
      fork: engineFork(deps.common),
      rules: chainRules(),
      precompiles: chainPrecompiles(engineFork(deps.common)),
    };
  }

  private tx(index: number): Tx {
    return (this.txs[index] ??= engineTxOf(this.block.txs[index]!, this.block.senders[index]!));
  }

  /** (Re)starts from the parent's state, after the block's system call as the executor ran it. */
  private reset(): WorldState {
    const base = new ArchiveStateReader(this.parentRoot, this.deps.readNode, this.deps.hashOf);
    // A forked chain's block began with the upstream values it fetched (committed by the block itself, before its
    // txs): the replay reads them as the block did.
    const up = this.deps.calls?.upstream;
    this.world = new WorldState(up ? forkReader(base, up, this.block.number - 1n) : base);
    preExecution(this.world, this.env, this.block.header.parentHash, this.opts.fork);
    this.next = 0;
    return this.world;
  }

  /** Runs transactions without tracing up to (excluding) `index`, yielding to the event loop now and then. */
  async advanceTo(index: number): Promise<WorldState> {
    await initEngine();
    let world = this.world;
    if (world === undefined || this.next > index) world = this.reset();
    let since = Date.now();
    try {
      while (this.next < index) {
        const out = executeTransaction(world, this.env, this.tx(this.next), this.opts);
        if (!out.ok) throw new ExecutionError(`replay of transaction ${this.next} failed: ${out.message}`);
        this.next++;
        if (Date.now() - since > YIELD_EVERY_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          since = Date.now();
        }
      }
    } catch (e) {
      // A read that failed mid-transaction (a lost state read, a missing node) left the world half-applied: the
      // next trace of this block must start over, not re-run that transaction on it ("nonce too high").
      this.world = undefined;
      throw e;
    }
    return world;
  }

  /**
   * Traces transaction `index` (running its predecessors first). After a tracer failure the world is mid-transaction,
   * so the next call starts over from the parent's state.
   */
  async trace(index: number, makeTracer: TracerFactory, timeoutMs: number): Promise<TraceResult> {
    const world = await this.advanceTo(index);
    const signed = this.block.txs[index]!;
    const tx = this.tx(index);
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : 0;
    const handle = await makeTracer(deadline);
    const ctx = contextOf(this.block.header);
    const txEnv = txEnvOf(world, this.env, tx, this.opts, effectiveGasPrice(signed, ctx.baseFeePerGas), {
      from: this.block.senders[index]!,
      to: signed.to,
      coinbase: ctx.coinbase,
    });
    txEnv.blockHash = this.block.hash;
    txEnv.txIndex = index;
    txEnv.txHash = this.block.txHashes[index];
    try {
      const { result } = runTraced({ world, env: this.env, tx, opts: this.opts, txEnv }, handle.tracer, deadline);
      this.next++;
      return result;
    } catch (e) {
      this.world = undefined;
      throw e;
    } finally {
      handle.close();
    }
  }
}
