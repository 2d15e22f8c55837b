// The tracing service behind debug_traceTransaction / debug_traceBlockBy* / debug_traceCall: picks the tracer
// for a config, replays, and bounds the work (per-transaction deadline, output budget, concurrent traces).
// Built-in tracers run on the node's thread (trusted code, yielding to the event loop as they go); JavaScript
// tracers run with their replay in a worker thread that is terminated at the deadline.
import type { BlockRecord } from '../store/records.ts';
import type { CallService } from '../app/evm/call.ts';
import { chainFork } from '../app/evm/common.ts';
import type { ChainQuery } from '../app/query.ts';
import { ExecutionError, LimitExceededError, NotFoundError } from '../errors/index.ts';
import type { CallRequest } from '../primitives/callRequest.ts';
import type { CallOverrides } from '../primitives/overrides.ts';
import { Semaphore } from '../primitives/semaphore.ts';
import { traceCallWith } from './callTrace.ts';
import { CallTracer } from './callTracer.ts';
import { OutputCapExceeded, TraceAbort } from './errors.ts';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './js/limits.ts';
import { ParityReplayTracer, type ReplayParts } from './parityTracer.ts';
import { PrestateTracer } from './prestateTracer.ts';
import { BlockReplay, type ReplayDeps, type TracerFactory } from './replay.ts';
import { FourByteTracer, NoopTracer } from './smallTracers.ts';
import { OutputBudget, StructLogger } from './structLogger.ts';
import type { ParityTrace, PrestateMap, TraceConfig, Tracer, TraceResult, VmTrace } from './types.ts';
import { TracerWorkers } from './worker/pool.ts';
import { toWire, type JsTraceSpec } from './worker/protocol.ts';

/** Bounds on tracing work. */
export interface TraceLimits {
  /** Traces running at once; more wait in a queue. */
  maxConcurrent: number;
  /** Traces allowed to wait; beyond that requests are refused. */
  maxQueued: number;
  /** Estimated JSON bytes one request may produce (struct logs). */
  maxOutputBytes: number;
  sandbox: SandboxLimits;
  /** V8 heap cap of a tracer worker (replay caches plus the tracer's host-side data). */
  workerHeapMb: number;
  /** Longest per-transaction trace time a caller may ask for; longer requests are clamped to it. */
  maxTimeoutMs: number;
}

/**
 * Defaults: two traces at a time, 128 MiB of struct logs per request, 64 MiB heap per JS tracer, 384 MiB per worker,
 * at most 60 s per traced transaction.
 */
export const DEFAULT_TRACE_LIMITS: TraceLimits = {
  maxConcurrent: 2,
  maxQueued: 32,
  maxOutputBytes: 128 * 1024 * 1024,
  sandbox: DEFAULT_SANDBOX_LIMITS,
  workerHeapMb: 384,
  maxTimeoutMs: 60_000,
};

/** One entry of a block trace: the result or, when that transaction's tracer failed, the error. */
export interface BlockTraceEntry {
  txHash: Uint8Array;
  result?: TraceResult;
  error?: string;
}

/** What the tracing service needs from the node. */
export interface TraceServiceDeps extends ReplayDeps {
  chain: ChainQuery;
  calls: CallService;
  limits?: Partial<TraceLimits>;
}

const NATIVE = new Set(['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer']);

function flag(cfg: Record<string, unknown>, key: string, struct: string): boolean {
  const v = cfg[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') {
    throw new ExecutionError(
      `json: cannot unmarshal ${typeof v === 'object' ? 'object' : typeof v} into Go struct field ${struct}.${key} of type bool`,
    );
  }
  return v;
}

/** Traces mined transactions, whole blocks and calls. */
export class TraceService {
  private readonly limits: TraceLimits;
  private readonly workers: TracerWorkers;
  private readonly gate: Semaphore;

  constructor(private readonly deps: TraceServiceDeps) {
    this.limits = { ...DEFAULT_TRACE_LIMITS, ...deps.limits };
    this.gate = new Semaphore(
      this.limits.maxConcurrent,
      this.limits.maxQueued,
      () => new LimitExceededError('too many concurrent trace requests; try again later'),
    );
    // Workers start on the first JavaScript trace, not with the node.
    this.workers = new TracerWorkers({
      evmChainId: deps.common.chainId(),
      fork: chainFork(deps.common),
      gasCap: deps.calls.gasCap,
      sandbox: this.limits.sandbox,
      readNode: deps.readNode,
      hashOf: deps.hashOf,
      size: this.limits.maxConcurrent,
      heapMb: this.limits.workerHeapMb,
    });
  }

  /** Stops the tracer workers. */
  close(): void {
    this.workers.close();
  }

  /** The caller's config with its timeout held to the node's cap. */
  private bounded(cfg: TraceConfig): TraceConfig {
    return cfg.timeoutMs <= this.limits.maxTimeoutMs ? cfg : { ...cfg, timeoutMs: this.limits.maxTimeoutMs };
  }

  /**
   * The built-in tracer for a config (its options are checked up front so a bad one fails before any replay),
   * or the JavaScript tracer to run in a worker.
   */
  private factory(cfg: TraceConfig, budget: OutputBudget): TracerFactory | JsTraceSpec {
    const name = cfg.tracer;
    const tc = cfg.tracerConfig;
    const native =
      (make: () => Tracer): TracerFactory =>
      async () => ({ tracer: make(), close() {} });
    if (name === undefined || name === '') return native(() => new StructLogger(cfg, budget));
    if (NATIVE.has(name)) {
      switch (name) {
        case 'callTracer': {
          const c = {
            onlyTopCall: flag(tc, 'onlyTopCall', 'callTracerConfig'),
            withLog: flag(tc, 'withLog', 'callTracerConfig'),
          };
          return native(() => new CallTracer(c));
        }
        case 'prestateTracer': {
          const c = {
            diffMode: flag(tc, 'diffMode', 'prestateTracerConfig'),
            disableCode: flag(tc, 'disableCode', 'prestateTracerConfig'),
            disableStorage: flag(tc, 'disableStorage', 'prestateTracerConfig'),
          };
          return native(() => new PrestateTracer(c));
        }
        case '4byteTracer':
          return native(() => new FourByteTracer());
        default:
          return native(() => new NoopTracer());
      }
    }
    // Anything else is JavaScript source, as in geth (a misspelt name fails as an undefined identifier).
    return { source: name, tracerConfig: tc, timeoutMs: cfg.timeoutMs };
  }

  private parentOf(block: BlockRecord): BlockRecord {
    if (block.number === 0n) throw new ExecutionError('genesis is not traceable');
    const parent = this.deps.chain.blockByNumber(block.number - 1n);
    if (!parent) throw new NotFoundError(`parent block ${block.number - 1n} not found`);
    return parent;
  }

  /** debug_traceTransaction: replays the block up to the transaction and traces it. */
  async traceTransaction(hash: Uint8Array, asked: TraceConfig): Promise<TraceResult> {
    const cfg = this.bounded(asked);
    const mined = this.deps.chain.minedTx(hash);
    if (!mined) throw new NotFoundError('transaction not found');
    const parent = this.parentOf(mined.block);
    const budget = new OutputBudget(this.limits.maxOutputBytes);
    const make = this.factory(cfg, budget);
    const parentRoot = parent.header.stateRoot;
    if (typeof make !== 'function') {
      const job = { type: 'tx' as const, block: toWire(mined.block), parentRoot, index: mined.index, spec: make };
      return this.gate.run(async () => json(await this.workers.session((w) => w.run(job))));
    }
    return this.gate.run(() =>
      new BlockReplay(this.deps, mined.block, parentRoot).trace(mined.index, make, cfg.timeoutMs),
    );
  }

  /**
   * debug_traceBlockBy*: traces every transaction. A transaction whose tracer fails (timeout, JS error) gets an
   * error entry and the replay continues; running out of the output budget fails the whole request.
   */
  async traceBlock(block: BlockRecord, asked: TraceConfig): Promise<BlockTraceEntry[]> {
    const cfg = this.bounded(asked);
    const parent = this.parentOf(block);
    const budget = new OutputBudget(this.limits.maxOutputBytes);
    const make = this.factory(cfg, budget);
    const parentRoot = parent.header.stateRoot;
    const each = async (trace: (i: number) => Promise<TraceResult>): Promise<BlockTraceEntry[]> => {
      const out: BlockTraceEntry[] = [];
      for (let i = 0; i < block.txs.length; i++) {
        const txHash = block.txHashes[i]!;
        try {
          out.push({ txHash, result: await trace(i) });
        } catch (e) {
          if (!(e instanceof TraceAbort) || e instanceof OutputCapExceeded) throw e;
          out.push({ txHash, error: e.message });
        }
      }
      return out;
    };
    if (typeof make !== 'function') {
      const wire = toWire(block);
      return this.gate.run(() =>
        this.workers.session((w) =>
          each(async (index) => json(await w.run({ type: 'tx', block: wire, parentRoot, index, spec: make }))),
        ),
      );
    }
    return this.gate.run(() => {
      const replay = new BlockReplay(this.deps, block, parentRoot);
      return each((i) => replay.trace(i, make, cfg.timeoutMs));
    });
  }

  /** debug_traceCall: traces a call on a block's state, as eth_call would run it. */
  async traceCall(
    req: CallRequest,
    block: BlockRecord,
    asked: TraceConfig,
    overrides?: CallOverrides,
  ): Promise<TraceResult> {
    const cfg = this.bounded(asked);
    const budget = new OutputBudget(this.limits.maxOutputBytes);
    const make = this.factory(cfg, budget);
    if (typeof make !== 'function') {
      const job = { type: 'call' as const, req, block: toWire(block), spec: make, overrides };
      return this.gate.run(async () => json(await this.workers.session((w) => w.run(job))));
    }
    return this.gate.run(() => traceCallWith(this.deps.calls, req, block, make, cfg.timeoutMs, overrides));
  }

  /** trace_transaction / trace_replayTransaction: the Parity traces (and asked parts) of a mined transaction. */
  async parityTransaction(
    hash: Uint8Array,
    parts: ParityParts = {},
  ): Promise<ParityReplay & { block: BlockRecord; index: number }> {
    const mined = this.deps.chain.minedTx(hash);
    if (!mined) throw new NotFoundError('transaction not found');
    const parentRoot = this.parentOf(mined.block).header.stateRoot;
    const timeout = this.limits.maxTimeoutMs;
    const result = await this.gate.run(() =>
      new BlockReplay(this.deps, mined.block, parentRoot).trace(mined.index, this.parityFactory(parts), timeout),
    );
    return { block: mined.block, index: mined.index, ...parityOf(result) };
  }

  /** trace_block / trace_filter / trace_replayBlockTransactions: each transaction's Parity traces, in order. */
  async parityBlock(block: BlockRecord, parts: ParityParts = {}): Promise<ParityReplay[]> {
    if (block.txs.length === 0) return [];
    const parentRoot = this.parentOf(block).header.stateRoot;
    const timeout = this.limits.maxTimeoutMs;
    const make = this.parityFactory(parts);
    return this.gate.run(async () => {
      const replay = new BlockReplay(this.deps, block, parentRoot);
      const out: ParityReplay[] = [];
      for (let i = 0; i < block.txs.length; i++) out.push(parityOf(await replay.trace(i, make, timeout)));
      return out;
    });
  }

  /** trace_call: the Parity traces (and asked parts) of a call run as eth_call runs it. */
  async parityCall(
    req: CallRequest,
    block: BlockRecord,
    parts: ParityParts = {},
    overrides?: CallOverrides,
  ): Promise<ParityReplay> {
    const timeout = this.limits.maxTimeoutMs;
    const make = this.parityFactory(parts);
    return parityOf(await this.gate.run(() => traceCallWith(this.deps.calls, req, block, make, timeout, overrides)));
  }

  /** The replay tracer for the asked parts; one output budget covers a request's vmTraces. */
  private parityFactory(parts: ParityParts): TracerFactory {
    const replayParts: ReplayParts = {
      stateDiff: parts.stateDiff,
      vmTrace: parts.vmTrace ? new OutputBudget(this.limits.maxOutputBytes) : undefined,
    };
    return async () => ({ tracer: new ParityReplayTracer(replayParts), close() {} });
  }
}

/** The optional parts of a trace_replay* / trace_call answer. */
export interface ParityParts {
  stateDiff?: boolean;
  vmTrace?: boolean;
}

/** What a trace_ replay gives: the flat traces, and the prestate diff and vmTrace when they were asked for. */
export interface ParityReplay {
  traces: ParityTrace[];
  stateDiff?: { pre: PrestateMap; post: PrestateMap };
  vmTrace?: VmTrace;
}

/** The Parity answer of one transaction (trace_*). */
function parityOf(r: TraceResult): ParityReplay {
  return r.kind === 'parity' ? { traces: r.value, stateDiff: r.stateDiff, vmTrace: r.vmTrace } : { traces: [] };
}

/** A JavaScript tracer's result (already plain JSON). */
function json(value: unknown): TraceResult {
  return { kind: 'json', value };
}
