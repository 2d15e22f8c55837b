// OpenEthereum's vmTrace (trace_replay*'s `vmTrace` type): every executed opcode of every frame, nested under the
// CALL/CREATE opcode that opened the frame, with what the opcode pushed, the memory it wrote, the slot it stored
// and the gas left after it. Semantics follow OpenEthereum and Erigon (see README's trace section for how reth's
// revm-inspectors differs).
import { CALL_STIPEND, Op, STACK_OUT } from '../evm/index.ts';
import type { OutputBudget } from './structLogger.ts';
import type { FrameEnter, StepEvent, TxEnv, VmOp, VmTrace } from './types.ts';

/** A memory region larger than this cannot have been written (the gas would run out long before). */
const MAX_REGION = 1n << 32n;

/** The memory region an opcode writes, read from its stack before it runs: [offset, size], or undefined. */
function writtenRegion(s: StepEvent): [bigint, bigint] | undefined {
  const at = (i: number): bigint | undefined => (i < s.stackLength ? s.peek(i) : undefined);
  let off: bigint | undefined;
  let size: bigint | undefined;
  switch (s.op) {
    case Op.MLOAD: // OpenEthereum lists it, as it may grow memory
    case Op.MSTORE:
      [off, size] = [at(0), 32n];
      break;
    case Op.MSTORE8:
      [off, size] = [at(0), 1n];
      break;
    case Op.CALLDATACOPY:
    case Op.CODECOPY:
    case Op.RETURNDATACOPY:
    case Op.MCOPY:
      [off, size] = [at(0), at(2)];
      break;
    case Op.EXTCODECOPY:
      [off, size] = [at(1), at(3)];
      break;
    case Op.CALL:
    case Op.CALLCODE:
      [off, size] = [at(5), at(6)];
      break;
    case Op.DELEGATECALL:
    case Op.STATICCALL:
      [off, size] = [at(4), at(5)];
      break;
  }
  if (off === undefined || size === undefined || size === 0n || off + size > MAX_REGION) return undefined;
  return [off, size];
}

/** An opcode whose push, memory and (after a callee) gas are known only at the frame's next step. */
interface Pending {
  rec: VmOp;
  outputs: number;
  region?: [bigint, bigint];
  /** True once the opcode opened a frame: `used` is then the gas left when the frame resumes. */
  entered: boolean;
}

interface Frame {
  trace: VmTrace;
  pending?: Pending;
}

/** Builds the vmTrace of one transaction from the step and frame hooks (composed into the replay tracer). */
export class VmTracer {
  private root?: VmTrace;
  /** Open frames, outermost first (index = geth's depth - 1). */
  private readonly frames: Frame[] = [];
  private env?: TxEnv;

  constructor(private readonly budget: OutputBudget) {}

  /** Keeps the state reader (a called frame's code is read when it opens). */
  txStart(env: TxEnv): void {
    this.env = env;
  }

  /**
   * Opens a frame's trace, as the `sub` of the CALL/CREATE opcode that opened it. A precompile runs no opcodes and
   * gets no `sub` (reth and Erigon leave precompile calls out of vmTrace).
   */
  enter(f: FrameEnter): void {
    const creates = f.type === 'CREATE' || f.type === 'CREATE2';
    const precompile = f.depth > 0 && !creates && (this.env?.isPrecompile(f.to) ?? false);
    const code = creates || precompile ? f.input : (this.env?.state.code(f.to) ?? new Uint8Array(0));
    const trace: VmTrace = { code: precompile ? new Uint8Array(0) : code, ops: [] };
    this.budget.charge(40 + trace.code.length * 2);
    const parent = this.frames[this.frames.length - 1];
    if (f.depth === 0 || !parent) {
      this.root = trace;
    } else if (parent.pending) {
      const p = parent.pending;
      if (!precompile) p.rec.sub = trace;
      p.entered = true;
      // The opcode's cost covers the gas it hands over (less a value call's free stipend), as geth's gas table and
      // OpenEthereum count it.
      const stipend = (f.type === 'CALL' || f.type === 'CALLCODE') && (f.value ?? 0n) > 0n ? BigInt(CALL_STIPEND) : 0n;
      p.rec.cost += f.gas - stipend;
    }
    this.frames.push({ trace });
  }

  /** Closes the innermost frame; its opener is completed at the parent's next step. */
  exit(): void {
    const frame = this.frames.pop();
    if (frame) this.settle(frame);
  }

  /** Completes the frame's previous opcode from the state now visible, and records this one. */
  step(s: StepEvent): void {
    const frame = this.frames[s.depth - 1];
    if (!frame) return;
    this.settle(frame, s);
    const rec: VmOp = {
      pc: s.pc,
      op: s.opName,
      cost: s.cost,
      ex: {
        push: [],
        mem: null,
        store: s.op === Op.SSTORE && s.stackLength >= 2 ? { key: s.peek(0), val: s.peek(1) } : null,
        used: s.gas - s.cost,
      },
      sub: null,
    };
    this.budget.charge(110 + (rec.ex!.store ? 140 : 0));
    frame.trace.ops.push(rec);
    const outputs = STACK_OUT[s.op]!;
    const region = writtenRegion(s);
    if (outputs > 0 || region) frame.pending = { rec, outputs, region, entered: false };
  }

  /** A failed opcode (not a REVERT, which executed) has no execution record, as OpenEthereum reports it. */
  fault(s: StepEvent, error: string): void {
    if (error === 'execution reverted') return;
    const frame = this.frames[s.depth - 1];
    const last = frame?.trace.ops[frame.trace.ops.length - 1];
    if (!frame || !last || last.pc !== s.pc) return;
    last.ex = null;
    frame.pending = undefined;
  }

  /** The transaction's trace: the top frame's code and opcodes (no opcodes for a call to an account without code). */
  result(): VmTrace {
    return this.root ?? { code: new Uint8Array(0), ops: [] };
  }

  /** Fills in the pending opcode of `frame` from step `s` (its next step), or leaves it as it is when none came. */
  private settle(frame: Frame, s?: StepEvent): void {
    const p = frame.pending;
    frame.pending = undefined;
    if (!p || !p.rec.ex || !s) return;
    const ex = p.rec.ex;
    for (let i = Math.min(p.outputs, s.stackLength) - 1; i >= 0; i--) ex.push.push(s.peek(i));
    if (p.region) {
      const [off, size] = p.region;
      ex.mem = { off: Number(off), data: s.memorySlice(Number(off), Number(size)) };
      this.budget.charge(Number(size) * 2);
    }
    if (p.entered) ex.used = s.gas;
  }
}
