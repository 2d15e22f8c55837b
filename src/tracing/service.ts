// The tracing service behind debug_traceTransaction / debug_traceBlockBy* / debug_traceCall: picks the tracer
// for a config, replays, and bounds the work (per-transaction deadline, output budget, concurrent traces).
import type { BlockRecord } from '../app/chain/types.ts';
import type { CallHook, CallService } from '../app/evm/call.ts';
import { installStepFeed } from '../app/evm/stepFeed.ts';
import type { ChainQuery } from '../app/query.ts';
import { ExecutionError, LimitExceededError, NotFoundError } from '../errors/index.ts';
import type { CallRequest } from '../primitives/callRequest.ts';
import { CallTracer } from './callTracer.ts';
import { TraceDriver } from './driver.ts';
import { TraceAbort } from './errors.ts';
import { JsTracer } from './js/jsTracer.ts';
import { DEFAULT_SANDBOX_LIMITS, SandboxHost, type SandboxLimits } from './js/sandbox.ts';
import { PrestateTracer } from './prestateTracer.ts';
import { BlockReplay, evmOf, outcomeOf, txEnv, type ReplayDeps, type TracerFactory, type TracerHandle } from './replay.ts';
import { FourByteTracer, NoopTracer } from './smallTracers.ts';
import { OutputBudget, StructLogger } from './structLogger.ts';
import type { TraceConfig, Tracer, TraceResult } from './types.ts';

/** Bounds on tracing work. */
export interface TraceLimits {
  /** Traces running at once; more wait in a queue. */
  maxConcurrent: number;
  /** Traces allowed to wait; beyond that requests are refused. */
  maxQueued: number;
  /** Estimated JSON bytes one request may produce (struct logs). */
  maxOutputBytes: number;
  sandbox: SandboxLimits;
}

/** Defaults: two traces at a time, 128 MiB of struct logs per request, 64 MiB heap per JS tracer. */
export const DEFAULT_TRACE_LIMITS: TraceLimits = {
  maxConcurrent: 2,
  maxQueued: 32,
  maxOutputBytes: 128 * 1024 * 1024,
  sandbox: DEFAULT_SANDBOX_LIMITS,
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
    throw new ExecutionError(`json: cannot unmarshal ${typeof v === 'object' ? 'object' : typeof v} into Go struct field ${struct}.${key} of type bool`);
  }
  return v;
}

/** Traces mined transactions, whole blocks and calls. */
export class TraceService {
  private readonly limits: TraceLimits;
  private readonly sandboxes: SandboxHost;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly deps: TraceServiceDeps) {
    this.limits = { ...DEFAULT_TRACE_LIMITS, ...deps.limits };
    this.sandboxes = new SandboxHost(this.limits.sandbox);
  }

  /** Runs `fn` when a tracing slot is free. */
  private async gated<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.maxConcurrent) {
      if (this.waiting.length >= this.limits.maxQueued) throw new LimitExceededError('too many concurrent trace requests; try again later');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await fn();
    } finally {
      // Hand the slot straight to the next waiter (it never decrements-then-increments, so nothing jumps the queue).
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** The tracer factory for a config; names are checked up front so a typo fails before any replay. */
  private factory(cfg: TraceConfig, budget: OutputBudget): TracerFactory {
    const name = cfg.tracer;
    const tc = cfg.tracerConfig;
    const native = (make: () => Tracer): TracerFactory => async () => ({ tracer: make(), close() {} });
    if (name === undefined || name === '') return native(() => new StructLogger(cfg, budget));
    if (NATIVE.has(name)) {
      switch (name) {
        case 'callTracer': {
          const c = { onlyTopCall: flag(tc, 'onlyTopCall', 'callTracerConfig'), withLog: flag(tc, 'withLog', 'callTracerConfig') };
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
    return async (deadline): Promise<TracerHandle> => {
      const t = await JsTracer.create(this.sandboxes, name, tc, deadline);
      return { tracer: t, close: () => t.close() };
    };
  }

  private parentOf(block: BlockRecord): BlockRecord {
    if (block.number === 0n) throw new ExecutionError('genesis is not traceable');
    const parent = this.deps.chain.blockByNumber(block.number - 1n);
    if (!parent) throw new NotFoundError(`parent block ${block.number - 1n} not found`);
    return parent;
  }

  /** debug_traceTransaction: replays the block up to the transaction and traces it. */
  async traceTransaction(hash: Uint8Array, cfg: TraceConfig): Promise<TraceResult> {
    const mined = this.deps.chain.minedTx(hash);
    if (!mined) throw new NotFoundError('transaction not found');
    const parent = this.parentOf(mined.block);
    const budget = new OutputBudget(this.limits.maxOutputBytes);
    const make = this.factory(cfg, budget);
    return this.gated(() => new BlockReplay(this.deps, mined.block, parent).trace(mined.index, make, cfg.timeoutMs));
  }

  /**
   * debug_traceBlockBy*: traces every transaction. A transaction whose tracer fails (timeout, JS error) gets an
   * error entry and the replay continues; running out of the output budget fails the whole request.
   */
  async traceBlock(block: BlockRecord, cfg: TraceConfig): Promise<BlockTraceEntry[]> {
    const parent = this.parentOf(block);
    const budget = new OutputBudget(this.limits.maxOutputBytes);
    const make = this.factory(cfg, budget);
    return this.gated(async () => {
      const replay = new BlockReplay(this.deps, block, parent);
      const out: BlockTraceEntry[] = [];
      for (let i = 0; i < block.txs.length; i++) {
        const txHash = block.txHashes[i]!;
        try {
          out.push({ txHash, result: await replay.trace(i, make, cfg.timeoutMs) });
        } catch (e) {
          if (!(e instanceof TraceAbort) || e.message.startsWith('trace output exceeds')) throw e;
          out.push({ txHash, error: e.message });
        }
      }
      return out;
    });
  }

  /** debug_traceCall: traces a call on a block's state, as eth_call would run it. */
  async traceCall(req: CallRequest, block: BlockRecord, cfg: TraceConfig): Promise<TraceResult> {
    const budget = new OutputBudget(this.limits.maxOutputBytes);
    const make = this.factory(cfg, budget);
    return this.gated(async () => {
      const deadline = cfg.timeoutMs > 0 ? Date.now() + cfg.timeoutMs : 0;
      const handle = await make(deadline);
      let driver: TraceDriver | undefined;
      let result: TraceResult | undefined;
      const readNode = this.deps.readNode;
      const hook: CallHook = {
        attach(vm, sm, tx, ctxBlock) {
          const priced = req.gasPrice !== undefined || req.maxFeePerGas !== undefined;
          const price = !priced ? 0n : (req.gasPrice ?? effectivePrice(req, ctxBlock.header.baseFeePerGas ?? 0n));
          const env = txEnv(vm, sm, readNode, tx, req.from ?? new Uint8Array(20), ctxBlock, price);
          driver = new TraceDriver(evmOf(vm), handle.tracer, env, deadline);
          driver.attach(installStepFeed(evmOf(vm)));
        },
        finish(r) {
          driver!.finish(outcomeOf(r));
          try {
            result = handle.tracer.result();
          } catch (e) {
            driver!.failure ??= e instanceof Error ? e : new TraceAbort(String(e));
            throw e;
          }
        },
        detach() {
          driver?.detach();
        },
        get failure() {
          return driver?.failure;
        },
      };
      try {
        await this.deps.calls.traceCall(req, block, hook);
      } finally {
        handle.close();
      }
      return result!;
    });
  }
}

/** The price an EIP-1559 call pays at `baseFee`. */
function effectivePrice(req: CallRequest, baseFee: bigint): bigint {
  const cap = req.maxFeePerGas ?? 0n;
  const tip = req.maxPriorityFeePerGas ?? 0n;
  return cap < baseFee + tip ? cap : baseFee + tip;
}
