// Connects one transaction's run on Kestrel's engine to a tracer: the engine's hook (src/evm/types.ts Tracer) becomes
// enter / step / exit / fault calls in geth's vocabulary (src/tracing/types.ts). The engine is synchronous, so a
// hook that throws (a JS tracer's error, the output budget) unwinds the run at once; the deadline is the engine's
// own (ExecOptions.deadline), checked at jumps and frame entries.
import type { ExecStatus, FrameEnd, FrameStart, Tracer as EngineTracer, StepView, TxResult } from '../evm/index.ts';
import { LAST_PRECOMPILE, OPCODE_NAMES } from '../evm/index.ts';
import { generateAddress } from '@ethereumjs/util';
import { addressToBytes } from '../primitives/bytes.ts';
import { bigintToBytes, bytesToBigint, padLeft } from '../primitives/hex.ts';
import { jumpLocation, precompileFailure, statusError } from '../app/evm/callRules.ts';
import { addressOf } from '../app/evm/engineTx.ts';
import { gethErrorText } from './errors.ts';
import type { FrameEnter, StepEvent, Tracer, TxEnv, TxOutcome } from './types.ts';

const EMPTY = new Uint8Array(0);

interface OpenFrame {
  enter: FrameEnter;
  /** The address whose code runs (a precompile's, for its failure text). */
  code: bigint;
  lastStep?: StepEvent;
}

/** Scalar fields of a step, for snapshotStep. */
export type StepFields = Pick<
  StepEvent,
  'pc' | 'op' | 'opName' | 'gas' | 'cost' | 'depth' | 'refund' | 'frame' | 'returnData'
>;

/** A step over copies of the stack (bottom → top) and memory (tests, and tracers fed without an engine). */
export function snapshotStep(f: StepFields, stack: bigint[], memory: Uint8Array): StepEvent {
  return {
    ...f,
    stackLength: stack.length,
    memoryLength: memory.length,
    peek: (i) => stack[stack.length - 1 - i]!,
    stack: () => stack.slice(),
    memorySlice: (offset, size) => copyOut(memory, offset, size),
  };
}

/** A copy of memory[offset, offset + size); bytes past `memory`'s end read as zero. */
function copyOut(memory: Uint8Array, offset: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  if (offset < memory.length) out.set(memory.subarray(offset, Math.min(memory.length, offset + size)));
  return out;
}

/**
 * A step as tracers see it. Scalars are fixed at the step; the stack is copied once, on the first read, and memory
 * is read from the live frame (exact during the step() call) up to its size before the opcode.
 */
class EngineStep implements StepEvent {
  readonly pc: number;
  readonly op: number;
  readonly opName: string;
  readonly gas: bigint;
  readonly cost: bigint;
  readonly depth: number;
  readonly refund: bigint;
  readonly memoryLength: number;
  readonly returnData: Uint8Array;
  private items?: readonly bigint[];

  constructor(
    private readonly v: StepView,
    readonly frame: FrameEnter,
  ) {
    this.pc = v.pc;
    this.op = v.op;
    this.opName = OPCODE_NAMES[v.op]!;
    this.gas = BigInt(v.gas);
    this.cost = BigInt(v.cost);
    this.depth = v.depth + 1;
    this.refund = BigInt(v.refund);
    this.memoryLength = v.memory().length;
    this.returnData = v.returnData();
  }

  private stackItems(): readonly bigint[] {
    return (this.items ??= this.v.stack());
  }
  get stackLength(): number {
    return this.stackItems().length;
  }
  peek(i: number): bigint {
    const s = this.stackItems();
    return s[s.length - 1 - i]!;
  }
  stack(): bigint[] {
    return this.stackItems().slice();
  }
  memorySlice(offset: number, size: number): Uint8Array {
    return copyOut(this.v.memory().subarray(0, this.memoryLength), offset, size);
  }
}

/** Drives a tracer from the engine's hook while one transaction runs; pass it as ExecOptions.tracer. */
export class TraceDriver implements EngineTracer {
  private readonly frames: OpenFrame[] = [];
  private entered = false;
  /** The failure text of the transaction's own frame (the outcome repeats it). */
  private topError?: string;
  /** The sender's nonce before the transaction (names the contract a creation makes). */
  private nonce = 0n;
  /** Absent when the tracer wants no steps: the engine then builds no step view at all. */
  readonly step?: (v: StepView) => void;

  constructor(
    private readonly tracer: Tracer,
    private readonly env: TxEnv,
  ) {
    if (tracer.wantsSteps !== false) this.step = (v) => this.onStep(v);
    const access = tracer.stateAccess;
    if (access !== undefined) {
      this.stateAccess = (a, s) =>
        access.call(tracer, addressToBytes(a), s === undefined ? undefined : padLeft(bigintToBytes(s), 32));
    }
  }

  /** A stateful precompile's state access, as bytes (absent when the tracer does not want it). */
  readonly stateAccess?: (address: bigint, slot?: bigint) => void;

  /** Announces the transaction (call before it runs: tracers read the pre-state here). */
  start(): void {
    this.nonce = this.env.state.account(this.env.from)?.nonce ?? 0n;
    this.tracer.txStart?.(this.env);
  }

  /** A frame opens: geth's from/to/self for its kind. */
  enter(f: FrameStart): void {
    this.entered = true;
    const type = f.kind;
    const self = addressToBytes(f.to);
    const caller = addressToBytes(f.from);
    const frame: FrameEnter = {
      depth: f.depth,
      type,
      from: type === 'DELEGATECALL' ? self : caller,
      to: type === 'DELEGATECALL' || type === 'CALLCODE' ? addressToBytes(f.codeAddress) : self,
      self,
      caller,
      input: f.input,
      gas: BigInt(f.gas),
      value: type === 'STATICCALL' ? undefined : f.value,
    };
    this.frames.push({ enter: frame, code: f.codeAddress });
    this.tracer.enter?.(frame);
  }

  /** A frame ends: its last step gets the fault, then the tracer the exit. */
  exit(f: FrameEnd): void {
    const frame = this.frames.pop();
    if (!frame) return;
    const ok = f.status === 'success';
    const reverted = f.status === 'revert';
    const last = frame.lastStep;
    const error = ok ? undefined : this.frameError(f.status, frame);
    if (frame.enter.depth === 0) this.topError = error;
    if (error !== undefined && last) this.tracer.fault?.(last, error);
    const output = ok || reverted ? f.output : EMPTY;
    this.tracer.exit?.({ depth: frame.enter.depth, output, gasUsed: BigInt(f.gasUsed), error, reverted });
  }

  /**
   * The text of a frame's failure: geth's words, but a bad jump keeps ethereumjs' "invalid JUMP at <code hash>/
   * <address>:<pc>" (what traces and eth_call have always said), and a precompile its input-shape text.
   */
  private frameError(status: ExecStatus, frame: OpenFrame): string {
    const last = frame.lastStep;
    const enter = frame.enter;
    if (status === 'precompile_failure' && frame.code <= LAST_PRECOMPILE)
      return precompileFailure(Number(frame.code), enter.input);
    if (status === 'bad_jump' && last) {
      const creation = enter.type === 'CREATE' || enter.type === 'CREATE2';
      const code = creation ? enter.input : this.env.state.code(addressToBytes(frame.code));
      return `invalid JUMP at ${jumpLocation(code, addressOf(enter.self), last.pc)}`;
    }
    return gethErrorText(statusError(status)!, last && { code: last.op, name: last.opName });
  }

  private onStep(v: StepView): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return;
    const step = new EngineStep(v, frame.enter);
    frame.lastStep = step;
    this.tracer.step?.(step);
  }

  /**
   * Reports the transaction's outcome. A top-level creation that collided never opened a frame in the engine; the
   * tracer still gets its one failed frame, as the transaction's own.
   */
  finish(r: TxResult): void {
    const env = this.env;
    if (!this.entered && r.status !== 'success') {
      const gas = env.gasLimit - env.intrinsicGas;
      const to = env.to ?? generateAddress(env.from, bigintToBytes(this.nonce));
      const type = env.to === undefined ? 'CREATE' : 'CALL';
      const [from, input, value] = [env.from, env.input, env.value];
      this.tracer.enter?.({ depth: 0, type, from, to, self: to, caller: from, input, gas, value });
      const error = gethErrorText(statusError(r.status)!);
      this.tracer.exit?.({ depth: 0, output: EMPTY, gasUsed: gas, error, reverted: false });
    }
    this.tracer.txEnd?.(this.outcome(r));
  }

  /** The outcome of a run, in tracer terms. */
  outcome(r: TxResult): TxOutcome {
    const to = this.env.to === undefined ? undefined : bytesToBigint(this.env.to);
    let error: string | undefined;
    if (r.status === 'success') error = undefined;
    else if (r.status === 'bad_jump' && this.topError !== undefined) error = this.topError;
    else if (r.status === 'precompile_failure' && to !== undefined && to <= LAST_PRECOMPILE)
      error = precompileFailure(Number(to), this.env.input);
    else error = gethErrorText(statusError(r.status)!);
    return {
      gasUsed: r.gasUsed,
      failed: r.status !== 'success',
      returnValue: r.output,
      error,
      // A creation names its address whether or not it succeeded (ctx.to of a JS tracer).
      createdAddress: this.env.to === undefined ? generateAddress(this.env.from, bigintToBytes(this.nonce)) : undefined,
    };
  }
}
