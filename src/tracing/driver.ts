// Connects one transaction's execution to a tracer: the EVM's beforeMessage / step / afterMessage events become
// enter / step / exit / fault calls in geth's vocabulary. It also enforces the deadline and yields to the event
// loop now and then so a long trace never stalls the node (block production, other requests).
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { generateAddress, generateAddress2 } from '@ethereumjs/util';
import { bigintToBytes } from '../primitives/hex.ts';
import { gethErrorText, TIMEOUT_MESSAGE, TraceAbort } from './errors.ts';
import type { FrameEnter, FrameType, StepEvent, Tracer, TxEnv, TxOutcome } from './types.ts';

const FRAME_OPS: Record<string, FrameType> = {
  CALL: 'CALL', CALLCODE: 'CALLCODE', DELEGATECALL: 'DELEGATECALL', STATICCALL: 'STATICCALL',
  CREATE: 'CREATE', CREATE2: 'CREATE2',
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

/** Drives a tracer from one EVM's events while one transaction runs. */
export class TraceDriver {
  private frames: OpenFrame[] = [];
  private steps = 0;
  private lastYield = Date.now();
  private readonly listeners: Array<[string, Listener]> = [];
  /** Set when a tracer hook threw or the deadline passed; the EVM is unwound with it. */
  failure?: Error;

  constructor(
    private readonly evm: EVM,
    private readonly tracer: Tracer,
    private readonly env: TxEnv,
    /** Epoch milliseconds after which the trace is aborted (0 = none). */
    private readonly deadline: number,
  ) {}

  /** Subscribes to the EVM's events and announces the transaction. */
  attach(): void {
    this.guard(() => this.tracer.txStart?.(this.env));
    this.on('beforeMessage', (msg: Message, resolve?: () => void) => {
      this.enter(msg).then(resolve!, (e: unknown) => this.fail(e, resolve!));
    });
    this.on('afterMessage', (r: EVMResult) => this.guard(() => this.exit(r)));
    if (this.tracer.wantsSteps === false) return;
    this.on('step', (ev: InterpreterStep, resolve?: () => void) => {
      this.guard(() => this.step(ev));
      if ((this.steps & 255) === 0 && Date.now() - this.lastYield > YIELD_EVERY_MS) {
        setImmediate(() => {
          this.lastYield = Date.now();
          resolve!();
        });
      } else {
        resolve!();
      }
    });
  }

  /** Removes the listeners (the VM may be reused for the next transaction). */
  detach(): void {
    for (const [name, fn] of this.listeners) this.evm.events!.off(name as never, fn as never);
    this.listeners.length = 0;
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
      input: msg.data,
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

  private step(ev: InterpreterStep): void {
    if ((++this.steps & 63) === 0 && this.deadline && Date.now() > this.deadline) throw new TraceAbort(TIMEOUT_MESSAGE);
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return;
    const step: StepEvent = {
      pc: ev.pc,
      op: ev.opcode.code,
      opName: ev.opcode.name,
      gas: ev.gasLeft,
      cost: ev.opcode.dynamicFee ?? BigInt(ev.opcode.fee),
      depth: ev.depth + 1,
      refund: ev.gasRefund,
      stack: ev.stack,
      memory: ev.memory,
      frame: frame.enter,
      returnData: frame.returnData,
    };
    frame.lastStep = step;
    const opens = FRAME_OPS[ev.opcode.name];
    if (opens) {
      frame.lastFrameOp = opens;
      frame.returnData = EMPTY;
    }
    this.tracer.step?.(step);
  }
}
