// The tracer's view of a step. Built only on the tracer path; the interpreter syncs pc/sp/gas into the frame
// before calling traceStep, so the view reads the frame directly.
import type { ExecStatus, StepView } from '../types.ts';
import { MASK160 } from '../../primitives/bytes.ts';
import type { Evm, Frame } from './context.ts';
import {
  CALL_VALUE,
  COLD_ACCOUNT_ACCESS,
  COLD_SLOAD,
  COPY_WORD,
  EXP_BYTE,
  INITCODE_WORD,
  KECCAK_WORD,
  LOG_DATA_BYTE,
  NEW_ACCOUNT,
  SSTORE_SENTRY,
  sstoreGas,
  sstoreRefund,
  WARM_ACCESS,
} from './gas.ts';
import { MEM_LIMIT } from './memory.ts';
import { Op, STACK_IN } from './opcodes.ts';

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

/** The opcodes a static frame may not run (CALL with value aside). */
const WRITES = new Set<number>([
  Op.SSTORE,
  Op.LOG0,
  Op.LOG1,
  Op.LOG2,
  Op.LOG3,
  Op.LOG4,
  Op.CREATE,
  Op.CREATE2,
  Op.SELFDESTRUCT,
]);

/**
 * The refund counter as a tracer sees it at an opcode: SSTORE's own change is included, since geth and ethereumjs
 * apply it while pricing the opcode, before the tracer hears of it.
 */
function refundAt(ev: Evm, f: Frame, op: number): number {
  if (op !== Op.SSTORE || f.isStatic || f.gas <= SSTORE_SENTRY || f.sp < 2) return ev.refund;
  const key = f.stack[f.sp - 1]!;
  const value = f.stack[f.sp - 2]!;
  const world = ev.world;
  return ev.refund + sstoreRefund(world.originalStorage(f.acc, key), world.storage(f.acc, key), value);
}

/** Memory expansion gas for [off, off+size) from stack words; a huge range costs more than any gas. */
function memCost(f: Frame, off: bigint, size: bigint): number {
  if (size === 0n) return 0;
  const end = off + size;
  if (end > BigInt(MEM_LIMIT)) return Number.MAX_SAFE_INTEGER;
  return f.mem.expansionCost(Number(end));
}

const words = (size: bigint): number =>
  size > BigInt(MEM_LIMIT) ? Number.MAX_SAFE_INTEGER : Math.ceil(Number(size) / 32);

/**
 * What an opcode will cost as far as it can be known before it runs: the static gas, memory expansion, copy and
 * hashing words, EIP-2929 access costs and SSTORE pricing. (A call's forwarded gas is not included.)
 */
function knownCost(ev: Evm, f: Frame, op: number): number {
  const base = Math.max(0, ev.staticGas[op]!);
  if (f.sp < STACK_IN[op]!) return base;
  const st = f.stack;
  const top = (i: number): bigint => st[f.sp - 1 - i]!;
  const world = ev.world;
  const access = (w: bigint): number => (world.isWarm(world.account(w & MASK160)) ? WARM_ACCESS : COLD_ACCOUNT_ACCESS);
  // A failure found while pricing the opcode leaves only its static cost, as geth's (and ethereumjs') tracers show.
  if (f.isStatic && (WRITES.has(op) || (op === Op.CALL && top(2) !== 0n))) return base;
  switch (op) {
    case Op.EXP: {
      const e = top(1);
      return base + (e === 0n ? 0 : EXP_BYTE * Math.ceil(e.toString(16).length / 2));
    }
    case Op.KECCAK256:
      return base + KECCAK_WORD * words(top(1)) + memCost(f, top(0), top(1));
    case Op.BALANCE:
    case Op.EXTCODESIZE:
    case Op.EXTCODEHASH:
      return access(top(0));
    case Op.RETURNDATACOPY:
      if (top(1) + top(2) > BigInt(f.returnData.length)) return base;
      return base + COPY_WORD * words(top(2)) + memCost(f, top(0), top(2));
    case Op.CALLDATACOPY:
    case Op.CODECOPY:
      return base + COPY_WORD * words(top(2)) + memCost(f, top(0), top(2));
    case Op.EXTCODECOPY:
      return access(top(0)) + COPY_WORD * words(top(3)) + memCost(f, top(1), top(3));
    case Op.MLOAD:
    case Op.MSTORE:
      return base + memCost(f, top(0), 32n);
    case Op.MSTORE8:
      return base + memCost(f, top(0), 1n);
    case Op.SLOAD:
      return f.acc.warmSlots?.has(top(0)) ? WARM_ACCESS : COLD_SLOAD;
    case Op.SSTORE: {
      if (f.gas <= SSTORE_SENTRY) return base;
      const key = top(0);
      const value = top(1);
      const current = world.storage(f.acc, key);
      const original = world.originalStorage(f.acc, key);
      const cold = f.acc.warmSlots?.has(key) ? 0 : COLD_SLOAD;
      return cold + sstoreGas(original, current, value);
    }
    case Op.MCOPY: {
      const hi = top(0) > top(1) ? top(0) : top(1);
      return base + COPY_WORD * words(top(2)) + memCost(f, hi, top(2));
    }
    case Op.LOG0:
    case Op.LOG1:
    case Op.LOG2:
    case Op.LOG3:
    case Op.LOG4:
      return (
        base +
        LOG_DATA_BYTE * Number(top(1) > BigInt(MEM_LIMIT) ? BigInt(MEM_LIMIT) : top(1)) +
        memCost(f, top(0), top(1))
      );
    case Op.CREATE:
    case Op.CREATE2:
      return (
        base +
        (op === Op.CREATE2 ? INITCODE_WORD + KECCAK_WORD : INITCODE_WORD) * words(top(2)) +
        memCost(f, top(1), top(2))
      );
    case Op.CALL:
    case Op.CALLCODE:
    case Op.DELEGATECALL:
    case Op.STATICCALL: {
      const hasValue = op === Op.CALL || op === Op.CALLCODE;
      const value = hasValue ? top(2) : 0n;
      const i = hasValue ? 3 : 2;
      const mem = Math.max(memCost(f, top(i), top(i + 1)), memCost(f, top(i + 2), top(i + 3)));
      let c = access(top(1)) + mem;
      if (value !== 0n) {
        c += CALL_VALUE;
        if (op === Op.CALL && world.account(top(1) & MASK160).isDead()) c += NEW_ACCOUNT;
      }
      return c;
    }
    case Op.RETURN:
    case Op.REVERT:
      return memCost(f, top(0), top(1));
    case Op.SELFDESTRUCT: {
      const ben = world.account(top(0) & MASK160);
      let c = base + (world.isWarm(ben) ? 0 : COLD_ACCOUNT_ACCESS);
      if (ben.isDead() && f.acc.balance !== 0n) c += NEW_ACCOUNT;
      return c;
    }
  }
  return base;
}

/** Calls the tracer's step hook for the opcode at f.pc. */
export function traceStep(ev: Evm, f: Frame, op: number): void {
  const t = ev.tracer!;
  if (t.step === undefined) return;
  const v = new View(ev, f);
  v.pc = f.pc;
  v.op = op;
  v.gas = f.gas;
  v.cost = knownCost(ev, f, op);
  v.depth = f.depth;
  v.refund = refundAt(ev, f, op);
  v.address = f.address;
  t.step(v);
}

/** Calls the tracer's fault hook for the opcode at f.pc that ended the frame exceptionally. */
export function traceFault(ev: Evm, f: Frame, op: number, status: ExecStatus): void {
  const t = ev.tracer!;
  if (t.fault === undefined) return;
  const v = new View(ev, f);
  v.pc = f.pc;
  v.op = op;
  v.gas = f.gas;
  v.cost = 0;
  v.depth = f.depth;
  v.refund = ev.refund;
  v.address = f.address;
  t.fault(v, status);
}
