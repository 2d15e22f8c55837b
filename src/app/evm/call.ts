// eth_call, eth_estimateGas and eth_createAccessList on Kestrel's engine: a message runs exactly as a transaction
// would (intrinsic gas, warm sets, refunds) on a throw-away WorldState over the block's archived state, bounded by
// the gas cap and the EVM timeout. State overrides are a StateReader overlay, block overrides a modified BlockEnv.
// debug_traceCall runs here too (traceCall hands the prepared call to the tracer), and eth_simulateV1 (simulate/)
// on the same engine.
import type { Common } from '@ethereumjs/common';
import { LRUCache } from 'lru-cache';
import { ExecutionError, RevertError } from '../../errors/index.ts';
import {
  type Address,
  type BlockEnv,
  type ExecOptions,
  ExecutionAborted,
  executeTransaction,
  type Fork,
  forkRules,
  initEngine,
  intrinsicGas,
  type Precompile,
  precompilesFor,
  type StateReader,
  type Tx,
  type TxResult,
  WorldState,
} from '../../evm/index.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import type { CallRequest } from '../../primitives/callRequest.ts';
import { bareHex } from '../../primitives/hex.ts';
import type { CallOverrides } from '../../primitives/overrides.ts';
import type { BlockRecord } from '../../store/records.ts';
import { contextOf } from '../block.ts';
import type { NodeSource } from '../../primitives/trie/read.ts';
import { buildAccessList, type AccessListResult, type AccessRun } from './accessList.ts';
import { ArchiveStateReader, READER_ENTRY_BYTES, readerEntriesFor } from './archiveReader.ts';
import { forkReader } from '../fork/forkReader.ts';
import type { ForkState } from '../fork/forkState.ts';
import {
  checkInitcode,
  jumpLocation,
  precompileInputFault,
  refusalOf,
  senderCheck,
  statusError,
  topFault,
  toppedUp,
} from './callRules.ts';
import { addressBytes, addressOf, blockEnvOf, callTxOf, engineFork } from './engineTx.ts';
import { chainPrecompiles, chainRules } from '../staking/chain.ts';
import { overlayReader } from './overlayReader.ts';
import { overrideContext, planOverrides } from './overrides.ts';
import { decodeRevertReason } from './revert.ts';
import { simulate, type SimBlockResult, type SimulateOptions } from './simulate/simulator.ts';

/** Limits applied to every call. */
export interface CallLimits {
  gasCap: bigint;
  timeoutMs: number;
  /** Bytes the kept readers' memos may hold together (the [cache] budget's share); the readers' default otherwise. */
  stateBytes?: number;
}

/** State roots whose readers are kept (the head, and the one before it while a block commits). */
const POOLED_ROOTS = 2;

/** One request's view: the (overlaid) state, the block it runs in, the precompiles it finds. */
interface CallScope {
  /** The state root (bare hex) the scope reads. */
  root: string;
  reader: StateReader;
  block: BlockRecord;
  /** The block's env before the call's own gas limit and pricing apply. */
  env: BlockEnv;
  precompiles: ReadonlyMap<Address, Precompile> | undefined;
  /** True when state overrides apply (estimateGas's transfer shortcut then trusts only its probe). */
  overridden: boolean;
  /**
   * A WorldState over `reader` kept between runs of a plain scope (undefined while one runs, and always for a scope
   * with overrides, which lives for one request). Each run reverts its journal to the start, so the next one finds
   * the accounts, code and slots it loaded in their pre-state, instead of building them again on a fresh world.
   */
  idle: WorldState | undefined;
  /** Whether runs may keep a WorldState in `idle` (plain scopes, reused across requests). */
  reusable: boolean;
}

/** Reads (accounts and slots) a kept WorldState may hold before it is dropped for a fresh one. */
const MAX_KEPT_READS = 4096;

/** A call ready to run on the engine: its world, block env, transaction and options (no tracer, no deadline). */
export interface PreparedCall {
  world: WorldState;
  env: BlockEnv;
  tx: Tx;
  opts: ExecOptions;
  /** The request names a gas price (else it runs at price 0 on a zero base fee). */
  priced: boolean;
  /** The least gas the call needs (intrinsic gas, or the EIP-7623 floor). */
  minGas: bigint;
}

/** What one run of a message produced. */
interface Run {
  result: TxResult;
  /** ethereumjs' error text of a failed run (what clients have always seen), undefined on success. */
  error: string | undefined;
  /** The run failed for want of gas (a precompile failing past its input checks counts: ethereumjs' reading). */
  outOfGas: boolean;
}

/** Runs calls and gas estimations against historical state. */
export class CallService {
  /** The archive readers by state root: memoised reads shared by every call at that root. */
  private readonly readers = new LRUCache<string, ArchiveStateReader>({ max: POOLED_ROOTS });
  /** The scope of a block without overrides (its reader and env), by block record: most calls ask the head. */
  private readonly plain = new WeakMap<BlockRecord, CallScope>();
  private readonly fork: Fork;
  private readonly chainId: bigint;

  constructor(
    private readonly common: Common,
    private readonly hashOf: (n: bigint) => Uint8Array | undefined,
    private readonly limits: CallLimits,
    private readonly readNode: NodeSource,
  ) {
    this.fork = engineFork(common);
    this.chainId = common.chainId();
  }

  /** --fork-url: the upstream state behind the local trie (set once at start, before any call). */
  upstream: ForkState | undefined;

  /**
   * A forked chain's read of the state at `block` (eth_getBalance, …): `read` runs until nothing it reads is
   * missing locally, fetching what it missed from the upstream in between.
   */
  readForked<T>(upstream: ForkState, block: BlockRecord, read: (state: StateReader) => T): Promise<T> {
    return upstream.resolve(() => read(forkReader(this.reader(block), upstream, block.number)));
  }

  /** The gas cap calls run with (tracer workers run debug_traceCall with the same cap). */
  get gasCap(): bigint {
    return this.limits.gasCap;
  }

  /** Estimated bytes of the kept readers' memos. */
  get stateBytes(): number {
    let entries = 0;
    for (const r of this.readers.values()) entries += r.entryCount;
    return entries * READER_ENTRY_BYTES;
  }

  private reader(block: BlockRecord): ArchiveStateReader {
    const root = bareHex(block.header.stateRoot);
    let r = this.readers.get(root);
    if (r === undefined) {
      const maxEntries = readerEntriesFor(
        this.limits.stateBytes === undefined ? undefined : this.limits.stateBytes / POOLED_ROOTS,
      );
      r = new ArchiveStateReader(block.header.stateRoot, this.readNode, this.hashOf, maxEntries);
      this.readers.set(root, r);
    }
    return r;
  }

  /** The request's state, block env and precompiles (geth's override validation runs here). */
  private scope(block: BlockRecord, overrides: CallOverrides | undefined, req: CallRequest): CallScope {
    if (this.upstream === undefined && overrides?.state === undefined && overrides?.block === undefined) {
      checkInitcode(req);
      const cached = this.plain.get(block);
      // A root dropped from the LRU gets a fresh reader (and scope): the memo of an old root is not kept alive here.
      if (cached !== undefined && this.readers.get(cached.root) === cached.reader) return cached;
      const s: CallScope = {
        root: bareHex(block.header.stateRoot),
        reader: this.reader(block),
        block,
        env: blockEnvOf(contextOf(block.header), this.chainId),
        precompiles: undefined,
        overridden: false,
        idle: undefined,
        reusable: true,
      };
      this.plain.set(block, s);
      return s;
    }
    // A forked chain's calls read through the fork (never pooled: a run's misses are fetched and it runs again).
    const local = this.reader(block);
    const base = this.upstream ? forkReader(local, this.upstream, block.number) : local;
    const ctx = contextOf(block.header);
    const forkTable = chainPrecompiles(this.fork);
    const plan = planOverrides(
      overrides?.state,
      [...forkTable.keys()].map((a) => addressBytes(a)),
    );
    let precompiles: Map<Address, Precompile> | undefined;
    if (plan.precompiles.length > 0) {
      precompiles = new Map(forkTable);
      for (const m of plan.precompiles) {
        const p = precompiles.get(addressOf(m.from));
        if (m.to !== undefined && p !== undefined) precompiles.set(addressOf(m.to), p);
        precompiles.delete(addressOf(m.from));
      }
    }
    // An override naming no field (a bare precompile move) writes nothing, so the account stays as it is.
    const written = plan.accounts.filter(
      (o) =>
        o.nonce !== undefined ||
        o.balance !== undefined ||
        o.code !== undefined ||
        o.state !== undefined ||
        o.stateDiff !== undefined,
    );
    const reader = written.length > 0 ? overlayReader(base, written, keccak256) : base;
    checkInitcode(req);
    // blobBaseFee is applied per run (it depends on whether the call is priced).
    const env = blockEnvOf(overrideContext(ctx, overrides?.block), this.chainId);
    return {
      root: bareHex(block.header.stateRoot),
      reader,
      block,
      env,
      precompiles,
      overridden: plan.accounts.length > 0,
      idle: undefined,
      reusable: false,
    };
  }

  private capGas(req: CallRequest): bigint {
    const cap = this.limits.gasCap > 0n ? this.limits.gasCap : 2n ** 63n;
    return req.gas !== undefined && req.gas > 0n && req.gas < cap ? req.gas : cap;
  }

  /**
   * The message with `gas` ready to run on a fresh WorldState over the scope's state: its env, tx and options, after
   * the sender's checks (which throw ExecutionError with the texts clients have always had).
   */
  private prepare(
    req: CallRequest,
    s: CallScope,
    gas: bigint,
    blobOverride: bigint | undefined,
    reuse = false,
  ): PreparedCall {
    const priced = req.gasPrice !== undefined || req.maxFeePerGas !== undefined;
    // Field by field rather than a spread of s.env: the same object shape, without the generic copy per call.
    const base = s.env;
    const env: BlockEnv = {
      number: base.number,
      timestamp: base.timestamp,
      coinbase: base.coinbase,
      gasLimit: base.gasLimit > gas ? base.gasLimit : gas,
      baseFee: priced ? base.baseFee : 0n,
      prevRandao: base.prevRandao,
      blobBaseFee: blobOverride === undefined ? base.blobBaseFee : priced ? blobOverride : 0n,
      chainId: base.chainId,
    };
    const from = req.from ? addressOf(req.from) : 0n;
    const sender = s.reader.account(from);
    const tx: Tx = callTxOf(req, gas, sender?.nonce ?? 0n);
    const { gas: intrinsic, floor } = intrinsicGas(tx, this.fork);
    const minGas = intrinsic > floor ? intrinsic : floor;
    senderCheck(tx, env, minGas, sender, s.reader, priced);
    const reader = priced ? s.reader : toppedUp(s.reader, tx);
    let world: WorldState;
    if (reuse && reader === s.reader && s.idle !== undefined) {
      world = s.idle;
      s.idle = undefined;
    } else world = new WorldState(reader);
    // Built field by field: a conditional spread costs a temporary object and a generic copy on every call.
    const opts: ExecOptions = {
      fork: this.fork,
      rules: chainRules(),
      isCall: true,
      precompiles: s.precompiles ?? chainPrecompiles(this.fork),
    };
    return { world, env, tx, opts, priced, minGas };
  }

  /**
   * Runs the message once with `gas` on a fresh WorldState over the scope's state. Pre-execution refusals (and the
   * timeout) throw ExecutionError with the texts clients have always had; an EVM failure is a result.
   */
  private run(
    req: CallRequest,
    s: CallScope,
    gas: bigint,
    blobOverride: bigint | undefined,
    touched?: Map<Address, Set<bigint>>,
  ): Run {
    const { world, env, tx, opts, priced, minGas } = this.prepare(req, s, gas, blobOverride, s.reusable);
    if (touched !== undefined) world.accessLog = { touched };
    // The options are this run's own (prepare made them), so the deadline is set on them rather than on a copy.
    if (this.limits.timeoutMs > 0) opts.deadline = Date.now() + this.limits.timeoutMs;
    let out;
    try {
      out = executeTransaction(world, env, tx, opts);
    } catch (e) {
      if (e instanceof ExecutionAborted) {
        throw new ExecutionError(`execution aborted (timeout = ${this.limits.timeoutMs / 1000}s)`);
      }
      throw e;
    } finally {
      if (s.reusable && world.reader === s.reader) keep(s, world);
    }
    if (!out.ok) throw refusalOf(out.reason, out.message, tx, minGas);
    let error = statusError(out.result.status);
    let outOfGas = out.result.status === 'out_of_gas';
    if (out.result.status === 'bad_jump') error += ' at ' + this.jumpSite(s, env, tx, priced);
    if (out.result.status === 'precompile_failure') {
      const fault = precompileInputFault(this.precompileNumber(s, tx.to!), tx.data);
      outOfGas = fault === undefined;
      error = fault ?? statusError('out_of_gas');
    }
    return { result: out.result, error, outOfGas };
  }

  /** The fork-table address (a small number) of the precompile a top-level message called at `to`. */
  private precompileNumber(s: CallScope, to: Address): number {
    const forkTable = precompilesFor(this.fork);
    const ran = (s.precompiles ?? forkTable).get(to);
    for (const [a, p] of forkTable) if (p === ran) return Number(a);
    return 0;
  }

  /** Replays a run that ended on a bad jump with a tracer, for where the top frame jumped (ethereumjs' text). */
  private jumpSite(s: CallScope, env: BlockEnv, tx: Tx, priced: boolean): string {
    const t = topFault();
    const world = new WorldState(priced ? s.reader : toppedUp(s.reader, tx));
    executeTransaction(world, env, tx, {
      fork: this.fork,
      rules: chainRules(),
      isCall: true,
      tracer: t,
      precompiles: s.precompiles ?? chainPrecompiles(this.fork),
    });
    const top = t.top!;
    const code = top.kind === 'CREATE' ? top.input : world.code(world.account(top.codeAddress));
    return jumpLocation(code, top.to, t.pc ?? 0);
  }

  /**
   * debug_traceCall: the call prepared exactly as eth_call runs it (gas cap, overrides, the sender's checks, an
   * unpriced sender's top-up), handed to `exec`, which runs it with a tracer. Refusals throw as eth_call's do.
   */
  async traceCall<T>(
    req: CallRequest,
    block: BlockRecord,
    exec: (call: PreparedCall) => T,
    overrides?: CallOverrides,
  ): Promise<T> {
    await initEngine();
    const s = this.scope(block, overrides, req);
    return exec(this.prepare(req, s, this.capGas(req), overrides?.block?.blobBaseFee));
  }

  /** eth_call: the return data, or RevertError / ExecutionError. */
  async call(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): Promise<Uint8Array> {
    await initEngine();
    if (this.upstream) return this.upstream.resolve(() => this.callSync(req, block, overrides));
    return this.callSync(req, block, overrides);
  }

  /**
   * eth_call without a promise (the engine is synchronous; once {@link engineReady}, else use {@link call}): the
   * return data, or throws RevertError / ExecutionError.
   */
  callSync(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): Uint8Array {
    const s = this.scope(block, overrides, req);
    const r = this.run(req, s, this.capGas(req), overrides?.block?.blobBaseFee);
    if (r.error !== undefined) throw failure(r.error, r.result.output);
    return r.result.output;
  }

  /** eth_simulateV1: simulated blocks on top of `base` (the gas cap bounds all calls together). */
  async simulate(opts: SimulateOptions, base: BlockRecord): Promise<SimBlockResult[]> {
    const deps = { common: this.common, reader: this.reader(base), readNode: this.readNode, hashOf: this.hashOf };
    return simulate({ ...deps, gasCap: this.limits.gasCap, timeoutMs: this.limits.timeoutMs }, opts, base);
  }

  /** eth_createAccessList: the list the call touches (run until stable), its gas, and its failure if any. */
  async createAccessList(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): Promise<AccessListResult> {
    await initEngine();
    const s = this.scope(block, overrides, req);
    const coinbase = s.env.coinbase;
    return buildAccessList(req, {
      run: (r): AccessRun => {
        const touched = new Map<Address, Set<bigint>>();
        const run = this.run(r, s, this.capGas(r), overrides?.block?.blobBaseFee, touched);
        // The request's own list is reported as given; the coinbase is warm from the start (EIP-3651) and
        // listed only for the slots read in it.
        for (const item of r.accessList ?? []) {
          const slots = touched.get(addressOf(item.address)) ?? new Set<bigint>();
          for (const k of item.storageKeys) slots.add(addressOf(k));
          touched.set(addressOf(item.address), slots);
        }
        const listed = r.accessList?.some((a) => addressOf(a.address) === coinbase) ?? false;
        if (!listed && touched.get(coinbase)?.size === 0) touched.delete(coinbase);
        return {
          touched: [...touched].map(([a, keys]) => ({ address: addressBytes(a), storageKeys: [...keys] })),
          gasUsed: run.result.gasUsed,
          ...(run.error !== undefined && { error: run.error }),
        };
      },
      precompiles: () => [...precompilesFor(this.fork).keys()].map((a) => addressBytes(a)),
      nonce: () => s.reader.account(req.from ? addressOf(req.from) : 0n)?.nonce ?? 0n,
    });
  }

  /** eth_estimateGas: the smallest gas limit with which the message succeeds (binary search, as geth). */
  async estimateGas(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): Promise<bigint> {
    await initEngine();
    if (this.upstream) return this.upstream.resolve(() => this.estimateGasSync(req, block, overrides));
    return this.estimateGasSync(req, block, overrides);
  }

  /** eth_estimateGas without a promise (once {@link engineReady}, else use {@link estimateGas}). */
  estimateGasSync(req: CallRequest, block: BlockRecord, overrides?: CallOverrides): bigint {
    const s = this.scope(block, overrides, req);
    const blob = overrides?.block?.blobBaseFee;
    let hi = req.gas !== undefined && req.gas >= 21000n ? req.gas : s.env.gasLimit;
    // EIP-7825 (Osaka): no transaction may carry more, so the search stays below the cap, as geth's estimator.
    const txCap = forkRules(this.fork).txGasLimitCap;
    if (txCap !== 0n && hi > txCap) hi = txCap;
    if (this.limits.gasCap > 0n && hi > this.limits.gasCap) hi = this.limits.gasCap;
    // A plain value transfer to an account without code costs exactly 21000 (geth's shortcut). (A success at
    // 21000 is the answer whatever the code: no call costs less. With overrides the probe alone decides.)
    if (req.to && (req.data === undefined || req.data.length === 0) && !req.accessList?.length) {
      const to = s.overridden ? undefined : s.reader.account(addressOf(req.to));
      const noCode = s.overridden || to === undefined || s.reader.code(to.codeHash).length === 0;
      if (noCode && this.succeeds(req, s, 21000n, blob)) return 21000n;
    }
    const first = this.run(req, s, hi, blob);
    if (first.error !== undefined) {
      if (first.result.status === 'revert') throw failure(first.error, first.result.output);
      throw new ExecutionError(first.outOfGas ? `gas required exceeds allowance (${hi})` : first.error);
    }
    const used = first.result.gasUsed;
    // A direct call of a module precompile charges flat gas: what it used is the exact answer.
    if (req.to && chainPrecompiles(this.fork).get(addressOf(req.to))?.stateful === true) {
      if (this.succeeds(req, s, used, blob)) return used;
    }
    let lo = used - 1n;
    // Most calls succeed with the gas they used plus refunds and the 63/64 reserve; try that first.
    const optimistic = ((used + first.result.gasRefund + 2300n) * 64n) / 63n;
    if (optimistic < hi && this.succeeds(req, s, optimistic, blob)) hi = optimistic;
    while (lo + 1n < hi) {
      if ((hi - lo) * 1000n < hi * 15n) break; // within 1.5%, geth's estimate tolerance
      const mid = (lo + hi) / 2n;
      if (this.succeeds(req, s, mid, blob)) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  private succeeds(req: CallRequest, s: CallScope, gas: bigint, blob: bigint | undefined): boolean {
    try {
      return this.run(req, s, gas, blob).error === undefined;
    } catch {
      return false;
    }
  }
}

/**
 * Puts a run's WorldState back in its scope for the next run: the journal reverted to the start (every write and
 * warming of the run undone; beginTx clears the per-tx sets), no access log. Dropped once it holds too much.
 */
function keep(s: CallScope, world: WorldState): void {
  world.revertTo(0);
  world.accessLog = undefined;
  if (world.loaded <= MAX_KEPT_READS) s.idle = world;
}

function failure(error: string, data: Uint8Array): Error {
  if (error === 'revert') return new RevertError(data, decodeRevertReason(data));
  return new ExecutionError(error);
}
