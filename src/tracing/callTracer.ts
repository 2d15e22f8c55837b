// callTracer: the tree of call frames, as geth's native callTracer builds it (config onlyTopCall, withLog).
import { decodeRevertReason } from '../app/evm/revert.ts';
import { bigintToBytes } from '../primitives/hex.ts';
import type { CallFrame, FrameEnter, FrameExit, StepEvent, Tracer, TraceResult, TxEnv, TxOutcome } from './types.ts';

const LOG0 = 0xa0;
const LOG4 = 0xa4;
const MAX_LOG_BYTES = 1n << 26n;

/** callTracer's options. */
export interface CallTracerConfig {
  onlyTopCall: boolean;
  withLog: boolean;
}

function word(n: bigint): Uint8Array {
  const b = bigintToBytes(n);
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

/** Drops the logs of failed frames and of everything they called (their effects were reverted). */
function clearFailedLogs(frame: CallFrame, parentFailed: boolean): void {
  const failed = parentFailed || frame.error !== undefined;
  if (failed) frame.logs = [];
  for (const c of frame.calls) clearFailedLogs(c, failed);
}

/** geth's callTracer. */
export class CallTracer implements Tracer {
  private readonly stack: CallFrame[] = [];
  private root?: CallFrame;
  private gasLimit = 0n;
  /** Frames below the top one are skipped with onlyTopCall; this counts how deep we are in skipped ones. */
  private skipped = 0;

  /** Steps are only needed to capture logs. */
  readonly wantsSteps: boolean;

  constructor(private readonly cfg: CallTracerConfig) {
    this.wantsSteps = cfg.withLog;
  }

  /** Remembers the transaction's gas limit (the top frame reports it). */
  txStart(env: TxEnv): void {
    this.gasLimit = env.gasLimit;
  }

  /** Opens a frame. */
  enter(f: FrameEnter): void {
    if (f.depth > 0 && (this.cfg.onlyTopCall || this.skipped > 0)) {
      this.skipped++;
      return;
    }
    const frame: CallFrame = {
      type: f.type,
      from: f.from,
      to: f.to,
      value: f.value,
      gas: f.depth === 0 ? this.gasLimit : f.gas,
      gasUsed: 0n,
      input: f.input,
      calls: [],
      logs: [],
    };
    if (f.depth === 0) this.root = frame;
    this.stack.push(frame);
  }

  /** Closes a frame and attaches it to its parent. */
  exit(x: FrameExit): void {
    if (this.skipped > 0) {
      this.skipped--;
      return;
    }
    const frame = this.stack.pop();
    if (!frame) return;
    frame.gasUsed = x.gasUsed;
    if (x.error === undefined) {
      if (x.output.length > 0) frame.output = x.output;
    } else {
      frame.error = x.error;
      if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined;
      if (x.reverted && x.output.length > 0) {
        frame.output = x.output;
        const reason = decodeRevertReason(x.output);
        if (reason !== undefined) frame.revertReason = reason;
      }
    }
    this.stack[this.stack.length - 1]?.calls.push(frame);
  }

  /** Captures LOGn opcodes when withLog is set. */
  step(s: StepEvent): void {
    if (!this.cfg.withLog || s.op < LOG0 || s.op > LOG4 || this.skipped > 0) return;
    const frame = this.stack[this.stack.length - 1];
    const n = s.op - LOG0;
    if (!frame || s.stackLength < 2 + n) return;
    const offset = s.peek(0);
    const size = s.peek(1);
    // A LOG this large cannot pay for its memory: it fails, and failed frames keep no logs.
    if (size > MAX_LOG_BYTES || offset > MAX_LOG_BYTES) return;
    const topics: Uint8Array[] = [];
    for (let i = 0; i < n; i++) topics.push(word(s.peek(2 + i)));
    // Bytes past memory's end read as zero (the opcode expands memory).
    frame.logs.push({
      address: s.frame.self,
      topics,
      data: s.memorySlice(Number(offset), Number(size)),
      position: frame.calls.length,
    });
  }

  /** The top frame's gasUsed is the receipt's, intrinsic gas included. */
  txEnd(o: TxOutcome): void {
    if (!this.root) return;
    this.root.gasUsed = o.gasUsed;
    if (this.cfg.withLog) clearFailedLogs(this.root, false);
  }

  /** The root frame. */
  result(): TraceResult {
    const root = this.root ?? {
      type: 'CALL',
      from: new Uint8Array(20),
      gas: 0n,
      gasUsed: 0n,
      input: new Uint8Array(0),
      calls: [],
      logs: [],
    };
    return { kind: 'call', value: root };
  }
}
