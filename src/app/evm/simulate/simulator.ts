// eth_simulateV1 on Kestrel's engine: simulated blocks on top of a block's state, one after the other, each with
// its overrides, its calls run as transactions (nonces, gas pool, receipts, roots), and a sealed header whose hash
// the next block's BLOCKHASH sees. Each block runs on its own WorldState over the state its parent left (the base
// block's archived state, then afterBlock.ts's layers); its state root is its diff written over its parent's root,
// the new trie nodes kept in memory. Nothing is persisted.
import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createContractAddress } from '@ethereumjs/util';
import { ExecutionError, SimulateError } from '../../../errors/index.ts';
import type {
  Address,
  BlockEnv,
  ExecOptions,
  Fork,
  Precompile,
  StateReader,
  Tx,
  TxOutcome,
} from '../../../evm/index.ts';
import { ExecutionAborted, executeTransaction, initEngine, intrinsicGas, WorldState } from '../../../evm/index.ts';
import { bytesToBigint } from '../../../primitives/bytes.ts';
import type { BlockRecord, LogRecord, ReceiptRecord } from '../../../store/records.ts';
import type { NodeSource } from '../../../primitives/trie/read.ts';
import type { ArchiveStateReader } from '../archiveReader.ts';
import { jumpLocation, precompileFailure, statusError, topFault } from '../callRules.ts';
import { addressBytes, addressOf, engineFork, preExecution } from '../engineTx.ts';
import { chainPrecompiles, chainRules } from '../../staking/chain.ts';
import { logRecord } from '../executor.ts';
import { blobBaseFee } from '../forkConfig.ts';
import { planOverrides } from '../overrides.ts';
import { writeState } from '../stateWrite.ts';
import { MemoryNodes, stateAfter } from './afterBlock.ts';
import { CallLogCollector } from './callLogs.ts';
import { planRequest, type SimBlockInput, type SimBlockPlan } from './plan.ts';
import {
  type BlockBody,
  callError,
  effectivePrice,
  headerFields,
  prepareCall,
  sealBlock,
  type SimBlockResult,
  type SimCallResult,
  withdrawalWei,
} from './sealing.ts';
import { writeWorldOverrides } from './worldOverrides.ts';

export type { SimBlockResult, SimCallError, SimCallResult } from './sealing.ts';

/** What the simulator needs from the node. */
export interface SimulateDeps {
  common: Common;
  /** The base block's state (the reader of its root, shared with eth_call). */
  reader: ArchiveStateReader;
  /** The archive's trie nodes (each block's state root is computed over them, in memory). */
  readNode: NodeSource;
  hashOf: (n: bigint) => Uint8Array | undefined;
  /** Gas all calls of one request may use together (the node's gas cap; 0 = none). */
  gasCap: bigint;
  timeoutMs: number;
}

/** The request, decoded. */
export interface SimulateOptions {
  blocks: SimBlockInput[];
  traceTransfers: boolean;
  validation: boolean;
}

/** Runs eth_simulateV1 on top of `base`. */
export async function simulate(
  deps: SimulateDeps,
  opts: SimulateOptions,
  base: BlockRecord,
): Promise<SimBlockResult[]> {
  await initEngine();
  return new Simulation(deps, opts, base).run(planRequest(opts.blocks, base));
}

/** What one call's transaction did, with the error text ethereumjs gave it (undefined on success). */
interface CallRun {
  outcome: TxOutcome;
  error: string | undefined;
}

class Simulation {
  private readonly simulatedHashes = new Map<bigint, Uint8Array>();
  /** The running block's world, over the state its parent left. */
  private world: WorldState;
  /** The state and state root the next block starts from. */
  private state: StateReader;
  private root: Uint8Array;
  /** Trie nodes the simulated blocks' roots added. */
  private readonly nodes: MemoryNodes;
  private readonly fork: Fork;
  private readonly forkTable: ReadonlyMap<Address, Precompile>;
  private readonly logs: CallLogCollector | undefined;
  private readonly deadline: number | undefined;
  private budget: bigint;

  constructor(
    private readonly deps: SimulateDeps,
    private readonly opts: SimulateOptions,
    private readonly base: BlockRecord,
  ) {
    const reader = deps.reader;
    // BLOCKHASH sees the simulated blocks before the chain's.
    this.state = {
      account: (a) => reader.account(a),
      code: (h) => reader.code(h),
      storage: (a, k) => reader.storage(a, k),
      blockHash: (n) => this.simulatedHashes.get(n) ?? reader.blockHash(n),
    };
    this.world = new WorldState(this.state);
    this.root = base.header.stateRoot;
    this.nodes = new MemoryNodes(deps.readNode);
    this.fork = engineFork(deps.common);
    this.forkTable = chainPrecompiles(this.fork);
    this.budget = deps.gasCap > 0n ? deps.gasCap : 2n ** 64n - 1n;
    if (opts.traceTransfers) this.logs = new CallLogCollector((a) => this.world.account(a).balance);
    if (deps.timeoutMs > 0) this.deadline = Date.now() + deps.timeoutMs;
  }

  run(plans: SimBlockPlan[]): SimBlockResult[] {
    const out: SimBlockResult[] = [];
    let parent: BlockHeader = this.base.header;
    for (const plan of plans) {
      // The timeout covers the whole request: empty blocks and sealing too, not only the EVM.
      if (this.deadline !== undefined && Date.now() > this.deadline) throw this.timeout();
      const result = this.block(plan, parent);
      this.simulatedHashes.set(result.block.number, result.block.hash);
      parent = result.block.header;
      out.push(result);
    }
    return out;
  }

  private timeout(): ExecutionError {
    return new ExecutionError(`execution aborted (timeout = ${this.deps.timeoutMs / 1000}s)`);
  }

  /** The precompiles of one block: the fork's, with this block's moves applied (they hold for their block only). */
  private precompilesOf(moves: ReturnType<typeof planOverrides>['precompiles']): Map<Address, Precompile> | undefined {
    if (moves.length === 0) return undefined;
    const table = new Map(this.forkTable);
    for (const m of moves) {
      const p = table.get(addressOf(m.from));
      if (m.to !== undefined && p !== undefined) table.set(addressOf(m.to), p);
      table.delete(addressOf(m.from));
    }
    return table;
  }

  private block(plan: SimBlockPlan, parent: BlockHeader): SimBlockResult {
    const o = plan.overrides;
    const common = this.deps.common;
    const fields = headerFields(plan, parent, this.opts.validation);
    const baseFee = fields.baseFeePerGas;
    const priced: BlockEnv = {
      number: plan.number,
      timestamp: plan.time,
      coinbase: addressOf(fields.coinbase),
      gasLimit: fields.gasLimit,
      baseFee,
      prevRandao: bytesToBigint(fields.mixHash),
      blobBaseFee: o.blobBaseFee ?? blobBaseFee(0n, this.fork),
      chainId: common.chainId(),
    };
    // A call without fees outside validation pays nothing (geth's NoBaseFee): it runs at base fee 0.
    const unpriced: BlockEnv = { ...priced, baseFee: 0n };

    const planned = planOverrides(
      plan.stateOverrides,
      [...this.forkTable.keys()].map((a) => addressBytes(a)),
    );
    const precompiles = this.precompilesOf(planned.precompiles);
    // One WorldState per block, over the state the previous block left: its diff is the block's own changes.
    this.world = new WorldState(this.state);
    writeWorldOverrides(this.world, planned.accounts);
    // The block's system call, after the overrides as in geth's simulation (at the block's own number and time).
    preExecution(this.world, priced, parent.hash(), this.fork);

    const body: BlockBody = { txs: [], hashes: [], senders: [], receipts: [], gasUsed: 0n };
    const calls: SimCallResult[] = [];
    const ctx = {
      common,
      gasLimit: fields.gasLimit,
      gasUsed: 0n,
      budget: 0n,
      baseFee,
      validation: this.opts.validation,
    };
    for (const req of plan.calls) {
      const acc = this.world.account(addressOf(req.from ?? new Uint8Array(20)));
      ctx.gasUsed = body.gasUsed;
      ctx.budget = this.budget;
      const c = prepareCall(req, acc, ctx);
      const tx: Tx = {
        type: 2,
        from: addressOf(c.from),
        to: req.to === undefined ? undefined : addressOf(req.to),
        nonce: c.txNonce,
        gasLimit: c.gas,
        value: c.value,
        data: c.data,
        gasPrice: 0n,
        maxFeePerGas: c.maxFeePerGas,
        maxPriorityFeePerGas: c.maxPriorityFeePerGas,
        accessList: (req.accessList ?? []).map((a) => ({
          address: addressOf(a.address),
          storageKeys: a.storageKeys.map((k) => bytesToBigint(k)),
        })),
        maxFeePerBlobGas: 0n,
        blobVersionedHashes: [],
        authorizationList: [],
      };
      const { outcome, error } = this.execute(c.pays ? priced : unpriced, tx, precompiles);
      if (!outcome.ok) throw refused(outcome.reason, outcome.message, tx, this.fork);
      const r = outcome.result;
      const spent = r.gasUsed;
      if (spent > this.budget)
        throw new ExecutionError(`RPC gas cap exhausted: need ${spent}, remaining ${this.budget}`);
      this.budget -= spent;
      body.gasUsed += spent;
      const bloom = new Uint8Array(256);
      const receiptLogs: LogRecord[] = r.logs.map((l) => logRecord(l, bloom));
      const receipt: ReceiptRecord = {
        type: 2,
        status: error !== undefined ? 0 : 1,
        cumulativeGasUsed: body.gasUsed,
        gasUsed: spent,
        logs: receiptLogs,
        bloom,
        from: c.from,
        effectiveGasPrice: c.pays ? effectivePrice(c.maxFeePerGas, c.maxPriorityFeePerGas, baseFee) : 0n,
      };
      if (req.to) receipt.to = req.to;
      else receipt.contractAddress = createContractAddress(c.sender, c.nonce).bytes;
      // Where the EIP-7623 floor is what the call paid, no refund is counted (ethereumjs' gasRefund).
      const floored = r.gasRefund > 0n && spent === intrinsicGas(tx, this.fork).floor;
      const result: SimCallResult = {
        // A failed call's output is in its error (revert data), not in returnData (geth's ExecutionResult.Return).
        returnData: error !== undefined ? new Uint8Array(0) : r.output,
        logs: error !== undefined ? [] : this.logs ? this.logs.logs() : receiptLogs,
        gasUsed: spent,
        // Gas before refunds (the spec's maxUsedGas): the refund applied is the EIP-3529-capped one.
        maxUsedGas: floored ? spent : spent + r.gasRefund,
        status: error !== undefined ? 0 : 1,
      };
      if (error !== undefined) result.error = callError(error, r.output, c.capped);
      body.txs.push(c.tx);
      body.hashes.push(c.hash);
      body.senders.push(c.from);
      body.receipts.push(receipt);
      calls.push(result);
    }
    const withdrawals = o.withdrawals ?? [];
    for (const w of withdrawals) {
      const amount = withdrawalWei(w);
      if (amount === 0n) continue;
      const a = this.world.account(addressOf(w.address));
      this.world.setBalance(a, a.balance + amount);
    }
    const diff = this.world.diff();
    const storageRoots: Uint8Array[] = [];
    const stateRoot = writeState(this.root, diff, this.nodes.read, this.nodes.put, {
      storageRoots,
      // The first block's parent is the base root, whose nodes the archive reader has decoded already.
      ...(this.root === this.base.header.stateRoot && { loaded: this.deps.reader }),
    });
    this.state = stateAfter(this.state, diff, storageRoots);
    this.root = stateRoot;
    return { block: sealBlock(common, fields, body, withdrawals, stateRoot), calls };
  }

  /**
   * Runs one call as a transaction of the simulation: no nonce check and no EIP-3607 sender check (geth's
   * simulation skips both); the fee and balance rules were checked by precheck(). The timeout covers the whole
   * request. A bad jump of the top frame is replayed with a tracer for where it was (ethereumjs' error text).
   */
  private execute(env: BlockEnv, tx: Tx, precompiles: Map<Address, Precompile> | undefined): CallRun {
    if (this.deadline !== undefined && Date.now() > this.deadline) throw this.timeout();
    const opts: ExecOptions = {
      fork: this.fork,
      rules: chainRules(),
      isCall: true,
      ...(this.deadline !== undefined && { deadline: this.deadline }),
      precompiles: precompiles ?? this.forkTable,
    };
    const snap = this.world.snapshot();
    this.logs?.reset();
    const outcome = this.guarded(tx, env, this.logs ? { ...opts, tracer: this.logs } : opts);
    if (!outcome.ok) return { outcome, error: undefined };
    const status = outcome.result.status;
    let error = statusError(status);
    if (status === 'precompile_failure') error = precompileFailure(this.precompileNumber(tx.to!, precompiles), tx.data);
    if (status === 'bad_jump') {
      this.world.revertTo(snap);
      const t = topFault();
      this.guarded(tx, env, { ...opts, tracer: t });
      const top = t.top!;
      const code = top.kind === 'CREATE' ? top.input : this.world.code(this.world.account(top.codeAddress));
      error += ' at ' + jumpLocation(code, top.to, t.pc ?? 0);
    }
    return { outcome, error };
  }

  private guarded(tx: Tx, env: BlockEnv, opts: ExecOptions): TxOutcome {
    try {
      return executeTransaction(this.world, env, tx, opts);
    } catch (e) {
      if (e instanceof ExecutionAborted) throw this.timeout();
      throw e;
    }
  }

  /** The fork-table address (a small number) of the precompile a top-level call ran at `to`. */
  private precompileNumber(to: Address, precompiles: Map<Address, Precompile> | undefined): number {
    const ran = (precompiles ?? this.forkTable).get(to);
    for (const [a, p] of this.forkTable) if (p === ran) return Number(a);
    return 0;
  }
}

/** A transaction the engine refused before running it (a rule precheck() does not cover), in ethereumjs' words. */
function refused(reason: string, message: string, tx: Tx, fork: Fork): SimulateError {
  if (reason === 'INTRINSIC_GAS_TOO_LOW' || reason === 'FLOOR_DATA_GAS_TOO_LOW') {
    const { gas, floor } = intrinsicGas(tx, fork);
    const min = gas > floor ? gas : floor;
    return new SimulateError(
      'INVALID_PARAMS',
      `err: INTRINSIC_GAS_TOO_LOW: tx gas limit ${tx.gasLimit} is lower than the minimum gas limit of ${min}`,
    );
  }
  if (reason === 'INITCODE_TOO_LARGE') {
    return new SimulateError('INIT_CODE_TOO_LARGE', `err: max initcode size exceeded: ${message}`);
  }
  return new SimulateError('INVALID_PARAMS', `err: ${message}`);
}
