// The logs of one simulated call in emission order, with ERC-7528 transfer logs for ether moved by calls when
// traceTransfers is on: each frame collects its own logs, a frame that fails drops them, one that succeeds hands
// them to its parent (geth's simulate tracer). Regular logs are taken from the LOG opcodes as they run (the engine's
// step hook), so transfers and events interleave as they happened.
import type { Address, FrameEnd, FrameStart, StepView, Tracer } from '../../../evm/index.ts';
import { addressToBytes, MASK160, wordToBytes } from '../../../primitives/bytes.ts';
import type { LogRecord } from '../../../store/records.ts';

/** ERC-7528's pseudo-address for the native currency. */
export const NATIVE_TOKEN = Uint8Array.from(Buffer.from('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'hex'));
/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = Uint8Array.from(
  Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex'),
);

const LOG0 = 0xa0;
const LOG4 = 0xa4;
const SELFDESTRUCT = 0xff;
/** Past this much memory growth a LOG cannot be paid for: it fails (with its frame) before it runs. */
const MAX_LOG_GROWTH = 0x1000000n;

/** One open call frame: its logs so far, and whether its code is init code. */
interface Frame {
  logs: LogRecord[];
  create: boolean;
}

function transfer(from: Address, to: Address, value: bigint): LogRecord {
  return {
    address: NATIVE_TOKEN,
    topics: [TRANSFER_TOPIC, wordToBytes(from), wordToBytes(to)],
    data: wordToBytes(value),
  };
}

/** Collects one call's logs at a time, as the engine's tracer of the simulation's transactions. */
export class CallLogCollector implements Tracer {
  private frames: Frame[] = [];
  private result: LogRecord[] = [];

  constructor(
    /** The live balance of an account (SELFDESTRUCT moves all of it). */
    private readonly balanceOf: (address: Address) => bigint,
  ) {}

  /** Starts a new call (clears what the previous one left). */
  reset(): void {
    this.frames = [];
    this.result = [];
  }

  /** A frame begins: a value moved by CALL (or a creation, or the transaction itself) is a transfer. */
  enter(f: FrameStart): void {
    const create = f.kind === 'CREATE' || f.kind === 'CREATE2';
    const frame: Frame = { logs: [], create };
    this.frames.push(frame);
    if (f.value === 0n || f.kind === 'DELEGATECALL' || f.kind === 'CALLCODE') return;
    frame.logs.push(transfer(f.from, f.to, f.value));
  }

  /** A frame ends: its logs go to its parent on success and are dropped on failure. */
  exit(e: FrameEnd): void {
    const frame = this.frames.pop();
    if (!frame || e.status !== 'success') return;
    const parent = this.frames[this.frames.length - 1];
    if (parent) parent.logs.push(...frame.logs);
    else this.result = frame.logs;
  }

  /** LOGn opcodes (and SELFDESTRUCT's transfer), before they run; one that fails takes its frame with it. */
  step(s: StepView): void {
    const op = s.op;
    if (op !== SELFDESTRUCT && (op < LOG0 || op > LOG4)) return;
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined) return;
    const stack = s.stack();
    const top = (i: number): bigint => stack[stack.length - 1 - i]!;
    if (op === SELFDESTRUCT) {
      // SELFDESTRUCT moves the whole balance without a frame of its own, so its transfer is logged here. (Init
      // code's SELFDESTRUCT logs none: Kestrel's answer since eth_simulateV1 first shipped.)
      if (frame.create || stack.length < 1) return;
      const value = this.balanceOf(s.address);
      if (value !== 0n) frame.logs.push(transfer(s.address, top(0) & MASK160, value));
      return;
    }
    const n = op - LOG0;
    if (stack.length < 2 + n) return;
    const topics: Uint8Array[] = [];
    for (let i = 0; i < n; i++) topics.push(wordToBytes(top(2 + i)));
    const offset = top(0);
    const size = top(1);
    const memory = s.memory();
    let data = new Uint8Array(0);
    if (size > 0n && offset + size <= BigInt(memory.length) + MAX_LOG_GROWTH) {
      // Memory past its current end is what the LOG expands it with: zeros.
      data = new Uint8Array(Number(size));
      const start = Number(offset);
      if (start < memory.length) data.set(memory.subarray(start, Math.min(memory.length, start + data.length)));
    }
    frame.logs.push({ address: addressToBytes(s.address), topics, data });
  }

  /** The logs of the call that just ran (empty when it failed). */
  logs(): LogRecord[] {
    return this.result;
  }
}
