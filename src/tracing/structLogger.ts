// The default tracer: one entry per executed opcode, as geth's struct logger records it.
import { bareHex, bigintToBytes } from '../primitives/hex.ts';
import { OutputCapExceeded } from './errors.ts';
import type {
  FrameEnter,
  StepEvent,
  StructLog,
  StructLoggerOptions,
  StructTrace,
  Tracer,
  TraceResult,
  TxEnv,
  TxOutcome,
} from './types.ts';

const SLOAD = 0x54;
const SSTORE = 0x55;
const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);
const CALL_STIPEND = 2300n;

/** Bytes of output a trace may hold; shared by every transaction of one request. */
export class OutputBudget {
  private used = 0;
  constructor(readonly maxBytes: number) {}
  /** Charges an estimate of the JSON size; throws once the request is over budget. */
  charge(bytes: number): void {
    this.used += bytes;
    if (this.maxBytes > 0 && this.used > this.maxBytes) {
      throw new OutputCapExceeded(
        `trace output exceeds ${Math.round(this.maxBytes / 1048576)} MiB; set "limit", "disableStack" or leave memory disabled`,
      );
    }
  }
}

function word(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  const out = new Uint8Array(32);
  out.set(b.subarray(Math.max(0, b.length - 32)), 32 - Math.min(b.length, 32));
  return out;
}

/** geth's StructLogger. */
export class StructLogger implements Tracer {
  private readonly logs: StructLog[] = [];
  /** Slots seen so far per contract (address hex → slot hex → [slot, value]). */
  private readonly storage = new Map<string, Map<string, [Uint8Array, Uint8Array]>>();
  /** The last entry recorded at each depth (1-based), so a fault lands on the failing opcode. */
  private readonly lastAtDepth: Array<StructLog | undefined> = [];
  /** The entry of a CALL-family opcode whose forwarded gas is known only when the callee frame opens. */
  private pendingCall?: StructLog;
  private env?: TxEnv;
  private outcome?: TxOutcome;

  constructor(
    private readonly opts: StructLoggerOptions,
    private readonly budget: OutputBudget,
  ) {}

  /** Remembers the state reader for SLOAD values. */
  txStart(env: TxEnv): void {
    this.env = env;
  }

  /** Adds the gas forwarded to a callee to its CALL entry's cost, as geth's gas tables do. */
  enter(frame: FrameEnter): void {
    const log = this.pendingCall;
    this.pendingCall = undefined;
    if (!log || frame.depth === 0 || !CALL_OPS.has(frame.type)) return;
    const stipend =
      (frame.type === 'CALL' || frame.type === 'CALLCODE') && (frame.value ?? 0n) > 0n ? CALL_STIPEND : 0n;
    log.gasCost += frame.gas - stipend;
  }

  /** Records one opcode. */
  step(s: StepEvent): void {
    this.pendingCall = undefined;
    if (this.opts.limit > 0 && this.logs.length >= this.opts.limit) return;
    const log: StructLog = { pc: s.pc, op: s.opName, gas: s.gas, gasCost: s.cost, depth: s.depth, refund: s.refund };
    let size = 90 + s.opName.length;
    if (!this.opts.disableStack) {
      log.stack = s.stack();
      size += s.stackLength * 24;
    }
    if (this.opts.enableMemory) {
      log.memory = s.memorySlice(0, s.memoryLength);
      size += s.memoryLength * 2 + (s.memoryLength / 32) * 5;
    }
    if (this.opts.enableReturnData && s.returnData.length > 0) {
      log.returnData = s.returnData;
      size += s.returnData.length * 2;
    }
    if (!this.opts.disableStorage && (s.op === SLOAD || s.op === SSTORE) && s.stackLength >= (s.op === SLOAD ? 1 : 2)) {
      const slot = word(bigintToBytes(s.peek(0)));
      const value = s.op === SLOAD ? this.env!.state.storage(s.frame.self, slot) : word(bigintToBytes(s.peek(1)));
      const key = bareHex(s.frame.self);
      let slots = this.storage.get(key);
      if (!slots) this.storage.set(key, (slots = new Map()));
      slots.set(bareHex(slot), [slot, value]);
      log.storage = new Map(slots);
      size += slots.size * 140;
    }
    this.budget.charge(size);
    this.logs.push(log);
    this.lastAtDepth[s.depth] = log;
    if (CALL_OPS.has(s.opName)) this.pendingCall = log;
  }

  /** Marks the failing opcode (geth does not mark a REVERT: it is reported as the result instead). */
  fault(s: StepEvent, error: string): void {
    if (error === 'execution reverted') return;
    const log = this.lastAtDepth[s.depth];
    if (log && log.pc === s.pc && log.op === s.opName) log.error = error;
  }

  /** Keeps the outcome for the result. */
  txEnd(outcome: TxOutcome): void {
    this.outcome = outcome;
  }

  /** {gas, failed, returnValue, structLogs}. */
  result(): TraceResult {
    const o = this.outcome;
    const value: StructTrace = {
      gas: o?.gasUsed ?? 0n,
      failed: o?.failed ?? false,
      // geth keeps the output of a revert and drops it for any other failure.
      returnValue: o && (!o.failed || o.error === 'execution reverted') ? o.returnValue : new Uint8Array(0),
      structLogs: this.logs,
    };
    return { kind: 'struct', value };
  }
}
