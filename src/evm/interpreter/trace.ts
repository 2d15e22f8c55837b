// The tracer's view of a step. Built only on the tracer path; the interpreter syncs pc/sp/gas into the frame
// before calling traceStep, so the view reads the frame directly.
import type { StepView } from '../types.ts';
import type { Evm, Frame } from './context.ts';
import { STATIC_GAS } from './opcodes.ts';

class View implements StepView {
  pc = 0;
  op = 0;
  gas = 0;
  cost = 0;
  depth = 0;
  refund = 0;
  address = 0n;
  constructor(
    private readonly ev: Evm,
    private readonly f: Frame,
  ) {}
  stack(): readonly bigint[] {
    return this.f.stack.slice(0, this.f.sp);
  }
  memory(): Uint8Array {
    return this.f.mem.buf.subarray(0, this.f.mem.size);
  }
  returnData(): Uint8Array {
    return this.f.returnData;
  }
  storage(slot: bigint): bigint {
    return this.ev.world.storage(this.f.acc, slot);
  }
}

/** Calls the tracer's step hook for the opcode at f.pc. */
export function traceStep(ev: Evm, f: Frame, op: number): void {
  const t = ev.tracer!;
  if (t.step === undefined) return;
  const v = new View(ev, f);
  v.pc = f.pc;
  v.op = op;
  v.gas = f.gas;
  v.cost = Math.max(0, STATIC_GAS[op]!);
  v.depth = f.depth;
  v.refund = ev.refund;
  v.address = f.address;
  t.step(v);
}
