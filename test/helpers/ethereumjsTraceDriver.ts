// The differential oracle of the engine's tracing (src/tracing/driver.ts): how tracers were driven on
// @ethereumjs/evm before the engine ran traces. The EVM's beforeMessage / afterMessage events and the step feed
// become enter / step / exit / fault calls in geth's vocabulary. Test code only.
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { generateAddress, generateAddress2 } from '@ethereumjs/util';
import type { OpStep, StepFeed } from './stepFeed.ts';
import { bigintToBytes } from '../../src/primitives/hex.ts';
import { snapshotStep } from '../../src/tracing/driver.ts';
import { gethErrorText, TIMEOUT_MESSAGE, TraceAbort } from '../../src/tracing/errors.ts';
import type { FrameEnter, FrameType, StepEvent, Tracer, TxEnv, TxOutcome } from '../../src/tracing/types.ts';

const FRAME_OPS: Record<string, FrameType> = {
  CALL: 'CALL',
  CALLCODE: 'CALLCODE',
  DELEGATECALL: 'DELEGATECALL',
  STATICCALL: 'STATICCALL',
  CREATE: 'CREATE',
  CREATE2: 'CREATE2',
};
const EMPTY = new Uint8Array(0);
/** Wall time between two yields to the event loop while a trace runs. */
const YIELD_EVERY_MS = 20;

interface OpenFrame {
  enter: FrameEnter;
  lastStep?: StepEvent;
  /** The opcode that opened the most recent child frame (its type). */
  lastFrameOp?: FrameType;
  returnData: Uint8Array;
}

type Listener = (data: never, resolve?: () => void) => void;

/** A step as tracers see it: the feed's live step plus the frame it runs in. */
class FeedStep implements StepEvent {
  constructor(
    private readonly s: OpStep,
    readonly frame: FrameEnter,
    readonly returnData: Uint8Array,
  ) {}
  get pc(): number {
    return this.s.pc;
  }
  get op(): number {
    return this.s.op;
  }
  get opName(): string {
    return this.s.opName;
  }
  get gas(): bigint {
    return this.s.gasLeft;
  }
  get cost(): bigint {
    return this.s.cost;
  }
  get depth(): number {
    return this.s.depth + 1;
  }
  get refund(): bigint {
    return this.s.refund;
  }
  get stackLength(): number {
    return this.s.stackLength;
  }
  get memoryLength(): number {
    return this.s.memoryLength;
  }
  peek(i: number): bigint {
    return this.s.peek(i);
  }
  stack(): bigint[] {
    return this.s.stack();
  }
  memorySlice(offset: number, size: number): Uint8Array {
    return this.s.memorySlice(offset, size);
  }
}

/** Drives a tracer from one EVM's events while one transaction runs. */
export class TraceDriver {
  private frames: OpenFrame[] = [];
  private steps = 0;
  private lastYield = Date.now();
  private readonly listeners: Array<[string, Listener]> = [];
  private feed?: StepFeed;
  /** Set when a tracer hook threw or the deadline passed; the EVM is unwound with it. */
  failure?: Error;

  constructor(
    private readonly evm: EVM,
    private readonly tracer: Tracer,
    private readonly env: TxEnv,
    /** Epoch milliseconds after which the trace is aborted (0 = none). */
    private readonly deadline: number,
  ) {}

  /**
   * Subscribes to the EVM's events and announces the transaction. Steps come from `feed` (the cheap path); without
   * one, from ethereumjs' `step` event. Tracers that want no steps still get the deadline and the yields.
   */
  attach(feed?: StepFeed): void {
    this.feed = feed;
    this.guard(() => this.tracer.txStart?.(this.env));
    this.on('beforeMessage', (msg: Message, resolve?: () => void) => {
      this.enter(msg).then(resolve!, (e: unknown) => this.fail(e, resolve!));
    });
    this.on('afterMessage', (r: EVMResult) => this.guard(() => this.exit(r)));
    const wants = this.tracer.wantsSteps !== false;
    if (feed) {
      feed.listener = (s) => {
        this.guard(() => this.onStep(wants ? s : undefined));
        return this.pause();
      };
      return;
    }
    if (!wants) return; // ethereumjs' step event copies stack and memory each time: not worth a deadline check
    this.on('step', (ev: InterpreterStep, resolve?: () => void) => {
      this.guard(() => this.onStep(this.snapshot(ev)));
      const p = this.pause();
      if (p) p.then(resolve!);
      else resolve!();
    });
  }

  /** Removes the listeners (the VM may be reused for the next transaction). */
  detach(): void {
    for (const [name, fn] of this.listeners) this.evm.events!.off(name as never, fn as never);
    this.listeners.length = 0;
    if (this.feed) this.feed.listener = undefined;
  }

  /** A promise that lets the event loop run, when the trace has held it for a while. */
  private pause(): Promise<void> | undefined {
    if ((this.steps & 255) !== 0 || Date.now() - this.lastYield <= YIELD_EVERY_MS) return undefined;
    return new Promise((resolve) => {
      setImmediate(() => {
        this.lastYield = Date.now();
        resolve();
      });
    });
  }

  /** Reports the transaction's outcome to the tracer. */
  finish(outcome: TxOutcome): void {
    this.guard(() => this.tracer.txEnd?.(outcome));
  }

  private on(name: string, fn: Listener): void {
    this.listeners.push([name, fn]);
    this.evm.events!.on(name as never, fn as never);
  }

  /** Runs a hook; a throw is remembered and re-thrown to unwind the EVM. */
  private guard(fn: () => void): void {
    if (this.failure) throw this.failure;
    try {
      fn();
    } catch (e) {
      this.failure ??= e instanceof Error ? e : new TraceAbort(String(e));
      throw this.failure;
    }
  }

  private fail(e: unknown, resolve: () => void): void {
    this.failure ??= e instanceof Error ? e : new TraceAbort(String(e));
    // The EVM awaits this event; unwinding happens at the next hook, which re-throws the failure.
    resolve();
  }

  private async enter(msg: Message): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.deadline && Date.now() > this.deadline) throw new TraceAbort(TIMEOUT_MESSAGE);
    const parent = this.frames[this.frames.length - 1];
    let type: FrameType;
    if (msg.depth === 0) type = msg.to ? 'CALL' : 'CREATE';
    else type = parent?.lastFrameOp ?? (msg.to ? 'CALL' : 'CREATE');
    let to: Uint8Array;
    if (msg.to === undefined) to = await this.createdAddress(msg, type);
    else if (type === 'DELEGATECALL' || type === 'CALLCODE') to = msg.codeAddress.bytes;
    else to = msg.to.bytes;
    const self = msg.to?.bytes ?? to;
    const frame: FrameEnter = {
      depth: msg.depth,
      type,
      from: type === 'DELEGATECALL' ? self : msg.caller.bytes,
      to,
      self,
      caller: msg.caller.bytes,
      // A copy: ethereumjs hands a view of the caller's memory, which later opcodes overwrite.
      input: msg.data.slice(),
      gas: msg.gasLimit,
      value: type === 'STATICCALL' ? undefined : msg.value,
    };
    this.frames.push({ enter: frame, returnData: EMPTY });
    this.guard(() => this.tracer.enter?.(frame));
  }

  private async createdAddress(msg: Message, type: FrameType): Promise<Uint8Array> {
    const caller = msg.caller.bytes;
    if (type === 'CREATE2' && msg.salt) return generateAddress2(caller, msg.salt, msg.data);
    // The caller's nonce was already bumped for this creation.
    const acc = await this.evm.stateManager.getAccount(msg.caller);
    const nonce = (acc?.nonce ?? 1n) - 1n;
    return generateAddress(caller, bigintToBytes(nonce));
  }

  private exit(r: EVMResult): void {
    const frame = this.frames.pop();
    if (!frame) return;
    const raw = r.execResult.exceptionError?.error;
    const reverted = raw === 'revert';
    const last = frame.lastStep;
    const error = raw === undefined ? undefined : gethErrorText(raw, last && { code: last.op, name: last.opName });
    if (error !== undefined && last) this.tracer.fault?.(last, error);
    const output = raw === undefined || reverted ? r.execResult.returnValue : EMPTY;
    const parent = this.frames[this.frames.length - 1];
    if (parent) {
      // geth keeps the callee's output as return data, except after a successful creation.
      const created = frame.enter.type === 'CREATE' || frame.enter.type === 'CREATE2';
      parent.returnData = (created && raw === undefined) || (raw !== undefined && !reverted) ? EMPTY : output;
    }
    this.tracer.exit?.({ depth: frame.enter.depth, output, gasUsed: r.execResult.executionGasUsed, error, reverted });
  }

  /** The event path's step, copied (ethereumjs already copied stack and memory into the event). */
  private snapshot(ev: InterpreterStep): StepEvent | undefined {
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return undefined;
    const f = {
      pc: ev.pc,
      op: ev.opcode.code,
      opName: ev.opcode.name,
      gas: ev.gasLeft,
      cost: ev.opcode.dynamicFee ?? BigInt(ev.opcode.fee),
      depth: ev.depth + 1,
      refund: ev.gasRefund,
      frame: frame.enter,
      returnData: frame.returnData,
    };
    return snapshotStep(f, ev.stack, ev.memory);
  }

  /** One opcode: the deadline, then the tracer (`s` is undefined for tracers that want no steps). */
  private onStep(s: OpStep | StepEvent | undefined): void {
    if ((++this.steps & 63) === 0 && this.deadline && Date.now() > this.deadline) throw new TraceAbort(TIMEOUT_MESSAGE);
    if (!s) return;
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return;
    const step: StepEvent = 'frame' in s ? s : new FeedStep(s, frame.enter, frame.returnData);
    frame.lastStep = step;
    const opens = FRAME_OPS[step.opName];
    if (opens) {
      frame.lastFrameOp = opens;
      frame.returnData = EMPTY;
    }
    this.tracer.step?.(step);
  }
}
