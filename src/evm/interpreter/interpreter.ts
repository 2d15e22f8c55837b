// The interpreter loop: one flat switch over the opcode byte with pc, sp and gas in locals. Arithmetic, stack,
// jump, memory-word and storage opcodes run inline; rarer and larger opcodes live in ops-*.ts and see the frame
// through its fields (synced around the call). The tracer branch tests one local per step and is never taken
// without a tracer.
import { MASK256, wordAt } from '../../primitives/bytes.ts';
import { jumpDeadline } from '../deadline.ts';
import { traceFault, traceStep } from './trace.ts';
import {
  Evm,
  Frame,
  keepsGas,
  S_BAD_JUMP,
  S_CALL,
  S_INVALID,
  S_OOG,
  S_OVERFLOW,
  S_RUNNING,
  S_STATIC,
  S_STOP,
  S_UNDERFLOW,
  STATUS_NAMES,
} from './context.ts';
import { readPush } from './analysis.ts';
import { COLD_SLOAD, EXP_BYTE, WARM_ACCESS } from './gas.ts';
import { MEM_LIMIT_BIG } from './memory.ts';
import { Op, STACK_IN, STACK_MAX } from './opcodes.ts';
import * as sys from './ops-system.ts';
import { outOfLine } from './ops-rare.ts';
import { byteLength, clz, exp, toSigned } from './arith.ts';

const NEG1 = MASK256;
const TWO256 = 1n << 256n;

/**
 * Runs `f` from f.pc until it halts (sets f.status, f.gas — 0 after an exceptional halt — and f.output) or until
 * it starts a child frame (f.status = S_CALL, f.pc at the next opcode; the driver resumes it afterwards).
 */
export function run(ev: Evm, f: Frame): void {
  const code = f.code;
  const codeLen = code.length;
  // As bigints once per run: a jump or CALLDATALOAD compares a stack word with them, and BigInt() allocates.
  const codeLenBig = BigInt(codeLen);
  const input = f.input;
  const inputLenBig = BigInt(input.length);
  const an = f.analysis!;
  const jumpdests = an.jumpdests;
  const pushIndex = an.pushIndex;
  const pushValues = an.pushValues;
  const stack = f.stack;
  const mem = f.mem;
  const world = ev.world;
  const tracer = ev.tracer;
  const deadline = ev.deadline;
  const staticGas = ev.staticGas;
  let pc = f.pc;
  let sp = f.sp;
  let gas = f.gas;
  let status = S_RUNNING;

  for (;;) {
    const op = pc < codeLen ? code[pc]! : 0;
    const sg = staticGas[op]!;
    if (tracer !== undefined) {
      f.pc = pc;
      f.sp = sp;
      f.gas = gas;
      traceStep(ev, f, op);
    }
    if (sg < 0) {
      status = S_INVALID;
      break;
    }
    if (sp < STACK_IN[op]!) {
      status = S_UNDERFLOW;
      break;
    }
    if (sp > STACK_MAX[op]!) {
      status = S_OVERFLOW;
      break;
    }
    if (gas < sg) {
      status = S_OOG;
      break;
    }
    gas -= sg;

    switch (op) {
      case Op.STOP:
        status = S_STOP;
        break;
      case Op.ADD: {
        // A compare instead of a mask: `& MASK256` allocates a fresh 256-bit result even when nothing wraps.
        sp--;
        const r = stack[sp - 1]! + stack[sp]!;
        stack[sp - 1] = r > MASK256 ? r - TWO256 : r;
        break;
      }
      case Op.MUL:
        sp--;
        stack[sp - 1] = (stack[sp - 1]! * stack[sp]!) & MASK256;
        break;
      case Op.SUB: {
        sp--;
        const r = stack[sp]! - stack[sp - 1]!;
        stack[sp - 1] = r < 0n ? r + TWO256 : r;
        break;
      }
      case Op.DIV: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : stack[sp]! / b;
        break;
      }
      case Op.SDIV: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : (toSigned(stack[sp]!) / toSigned(b)) & MASK256;
        break;
      }
      case Op.MOD: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : stack[sp]! % b;
        break;
      }
      case Op.SMOD: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : (toSigned(stack[sp]!) % toSigned(b)) & MASK256;
        break;
      }
      case Op.ADDMOD: {
        sp -= 2;
        const n = stack[sp - 1]!;
        stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! + stack[sp]!) % n;
        break;
      }
      case Op.MULMOD: {
        sp -= 2;
        const n = stack[sp - 1]!;
        stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! * stack[sp]!) % n;
        break;
      }
      case Op.EXP: {
        sp--;
        const e = stack[sp - 1]!;
        const cost = EXP_BYTE * byteLength(e);
        if (gas < cost) {
          status = S_OOG;
          break;
        }
        gas -= cost;
        const b = stack[sp]!;
        stack[sp - 1] = e === 0n ? 1n : b === 2n && e < 256n ? (1n << e) & MASK256 : exp(b, e);
        break;
      }
      case Op.SIGNEXTEND: {
        sp--;
        const k = stack[sp]!;
        if (k < 31n) {
          const x = stack[sp - 1]!;
          const bit = k * 8n + 7n;
          const low = (1n << bit) - 1n;
          stack[sp - 1] = (x >> bit) & 1n ? x | (MASK256 ^ low) : x & low;
        }
        break;
      }
      case Op.LT:
        sp--;
        stack[sp - 1] = stack[sp]! < stack[sp - 1]! ? 1n : 0n;
        break;
      case Op.GT:
        sp--;
        stack[sp - 1] = stack[sp]! > stack[sp - 1]! ? 1n : 0n;
        break;
      case Op.SLT:
        sp--;
        stack[sp - 1] = toSigned(stack[sp]!) < toSigned(stack[sp - 1]!) ? 1n : 0n;
        break;
      case Op.SGT:
        sp--;
        stack[sp - 1] = toSigned(stack[sp]!) > toSigned(stack[sp - 1]!) ? 1n : 0n;
        break;
      case Op.EQ:
        sp--;
        stack[sp - 1] = stack[sp]! === stack[sp - 1]! ? 1n : 0n;
        break;
      case Op.ISZERO:
        stack[sp - 1] = stack[sp - 1]! === 0n ? 1n : 0n;
        break;
      case Op.AND:
        sp--;
        stack[sp - 1] = stack[sp]! & stack[sp - 1]!;
        break;
      case Op.OR:
        sp--;
        stack[sp - 1] = stack[sp]! | stack[sp - 1]!;
        break;
      case Op.XOR:
        sp--;
        stack[sp - 1] = stack[sp]! ^ stack[sp - 1]!;
        break;
      case Op.NOT:
        stack[sp - 1] = NEG1 ^ stack[sp - 1]!;
        break;
      case Op.BYTE: {
        sp--;
        const i = stack[sp]!;
        stack[sp - 1] = i < 32n ? (stack[sp - 1]! >> (8n * (31n - i))) & 0xffn : 0n;
        break;
      }
      case Op.SHL: {
        sp--;
        const s = stack[sp]!;
        stack[sp - 1] = s < 256n ? (stack[sp - 1]! << s) & MASK256 : 0n;
        break;
      }
      case Op.SHR: {
        sp--;
        const s = stack[sp]!;
        stack[sp - 1] = s < 256n ? stack[sp - 1]! >> s : 0n;
        break;
      }
      case Op.SAR: {
        sp--;
        const s = stack[sp]!;
        const v = toSigned(stack[sp - 1]!);
        stack[sp - 1] = (v >> (s < 256n ? s : 256n)) & MASK256;
        break;
      }
      case Op.CLZ:
        stack[sp - 1] = clz(stack[sp - 1]!);
        break;
      case Op.ADDRESS:
        stack[sp++] = f.address;
        break;
      case Op.ORIGIN:
        stack[sp++] = ev.origin;
        break;
      case Op.CALLER:
        stack[sp++] = f.caller;
        break;
      case Op.CALLVALUE:
        stack[sp++] = f.value;
        break;
      case Op.CALLDATALOAD: {
        const o = stack[sp - 1]!;
        stack[sp - 1] = o >= inputLenBig ? 0n : wordAt(input, Number(o));
        break;
      }
      case Op.CALLDATASIZE:
        stack[sp++] = inputLenBig;
        break;
      case Op.CODESIZE:
        stack[sp++] = codeLenBig;
        break;
      case Op.GASPRICE:
        stack[sp++] = ev.gasPrice;
        break;
      case Op.RETURNDATASIZE:
        stack[sp++] = BigInt(f.returnData.length);
        break;
      case Op.COINBASE:
        stack[sp++] = ev.block.coinbase;
        break;
      case Op.TIMESTAMP:
        stack[sp++] = ev.block.timestamp;
        break;
      case Op.NUMBER:
        stack[sp++] = ev.block.number;
        break;
      case Op.PREVRANDAO:
        stack[sp++] = ev.block.prevRandao;
        break;
      case Op.GASLIMIT:
        stack[sp++] = ev.block.gasLimit;
        break;
      case Op.CHAINID:
        stack[sp++] = ev.block.chainId;
        break;
      case Op.SELFBALANCE:
        stack[sp++] = f.acc.balance;
        break;
      case Op.BASEFEE:
        stack[sp++] = ev.block.baseFee;
        break;
      case Op.BLOBBASEFEE:
        stack[sp++] = ev.block.blobBaseFee;
        break;
      case Op.POP:
        sp--;
        break;
      case Op.MLOAD: {
        const o = stack[sp - 1]!;
        if (o > MEM_LIMIT_BIG) {
          status = S_OOG;
          break;
        }
        const off = Number(o);
        const end = off + 32;
        if (end > mem.size) {
          const c = mem.expansionCost(end);
          if (gas < c) {
            status = S_OOG;
            break;
          }
          gas -= c;
          mem.grow(end);
        }
        stack[sp - 1] = mem.loadWord(off);
        break;
      }
      case Op.MSTORE:
      case Op.MSTORE8: {
        const o = stack[sp - 1]!;
        if (o > MEM_LIMIT_BIG) {
          status = S_OOG;
          break;
        }
        const off = Number(o);
        const end = off + (op === Op.MSTORE ? 32 : 1);
        if (end > mem.size) {
          const c = mem.expansionCost(end);
          if (gas < c) {
            status = S_OOG;
            break;
          }
          gas -= c;
          mem.grow(end);
        }
        if (op === Op.MSTORE) mem.storeWord(off, stack[sp - 2]!);
        else mem.buf[off] = Number(stack[sp - 2]! & 0xffn);
        sp -= 2;
        break;
      }
      case Op.SLOAD: {
        const key = stack[sp - 1]!;
        const acc = f.acc;
        const c = world.warmSlot(acc, key) ? WARM_ACCESS : COLD_SLOAD;
        if (gas < c) {
          status = S_OOG;
          break;
        }
        gas -= c;
        stack[sp - 1] = world.storage(acc, key);
        break;
      }
      case Op.SSTORE: {
        f.sp = sp;
        f.gas = gas;
        status = sys.sstore(ev, f);
        sp = f.sp;
        gas = f.gas;
        break;
      }
      case Op.JUMP: {
        const d = stack[--sp]!;
        if (d >= codeLenBig || jumpdests[Number(d)] !== 1) {
          status = S_BAD_JUMP;
          break;
        }
        pc = Number(d);
        if (deadline !== 0) jumpDeadline(ev);
        continue;
      }
      case Op.JUMPI: {
        sp -= 2;
        if (stack[sp]! !== 0n) {
          const d = stack[sp + 1]!;
          if (d >= codeLenBig || jumpdests[Number(d)] !== 1) {
            status = S_BAD_JUMP;
            break;
          }
          pc = Number(d);
          if (deadline !== 0) jumpDeadline(ev);
          continue;
        }
        break;
      }
      case Op.PC:
        stack[sp++] = BigInt(pc);
        break;
      case Op.MSIZE:
        stack[sp++] = BigInt(mem.size);
        break;
      case Op.GAS:
        stack[sp++] = f.gasExtra === 0n ? BigInt(gas) : BigInt(gas) + f.gasExtra;
        break;
      case Op.JUMPDEST:
        break;
      case Op.TLOAD:
        stack[sp - 1] = world.tload(f.acc, stack[sp - 1]!);
        break;
      case Op.TSTORE:
        if (f.isStatic) {
          status = S_STATIC;
          break;
        }
        sp -= 2;
        world.tstore(f.acc, stack[sp + 1]!, stack[sp]!);
        break;
      case Op.PUSH0:
        stack[sp++] = 0n;
        break;
      case Op.PUSH1:
      case Op.PUSH2:
      case Op.PUSH3:
      case Op.PUSH4:
      case Op.PUSH5:
      case Op.PUSH6:
      case Op.PUSH7:
      case Op.PUSH8:
      case Op.PUSH9:
      case Op.PUSH10:
      case Op.PUSH11:
      case Op.PUSH12:
      case Op.PUSH13:
      case Op.PUSH14:
      case Op.PUSH15:
      case Op.PUSH16:
      case Op.PUSH17:
      case Op.PUSH18:
      case Op.PUSH19:
      case Op.PUSH20:
      case Op.PUSH21:
      case Op.PUSH22:
      case Op.PUSH23:
      case Op.PUSH24:
      case Op.PUSH25:
      case Op.PUSH26:
      case Op.PUSH27:
      case Op.PUSH28:
      case Op.PUSH29:
      case Op.PUSH30:
      case Op.PUSH31:
      case Op.PUSH32: {
        const n = op - Op.PUSH0;
        const idx = pushIndex[pc]!;
        let v = pushValues[idx];
        if (v === undefined) {
          v = readPush(code, pc, n);
          pushValues[idx] = v;
        }
        stack[sp++] = v;
        pc += n + 1;
        continue;
      }
      case Op.DUP1:
      case Op.DUP2:
      case Op.DUP3:
      case Op.DUP4:
      case Op.DUP5:
      case Op.DUP6:
      case Op.DUP7:
      case Op.DUP8:
      case Op.DUP9:
      case Op.DUP10:
      case Op.DUP11:
      case Op.DUP12:
      case Op.DUP13:
      case Op.DUP14:
      case Op.DUP15:
      case Op.DUP16:
        stack[sp] = stack[sp - (op - Op.DUP1 + 1)]!;
        sp++;
        break;
      case Op.SWAP1:
      case Op.SWAP2:
      case Op.SWAP3:
      case Op.SWAP4:
      case Op.SWAP5:
      case Op.SWAP6:
      case Op.SWAP7:
      case Op.SWAP8:
      case Op.SWAP9:
      case Op.SWAP10:
      case Op.SWAP11:
      case Op.SWAP12:
      case Op.SWAP13:
      case Op.SWAP14:
      case Op.SWAP15:
      case Op.SWAP16: {
        const j = sp - 2 - (op - Op.SWAP1);
        const t = stack[sp - 1]!;
        stack[sp - 1] = stack[j]!;
        stack[j] = t;
        break;
      }
      default: {
        // Everything else runs out of line on the frame's fields.
        f.pc = pc;
        f.sp = sp;
        f.gas = gas;
        status = outOfLine(ev, f, op);
        sp = f.sp;
        gas = f.gas;
        break;
      }
    }
    if (status !== S_RUNNING) break;
    pc++;
  }
  if (status === S_CALL) {
    f.pc = pc + 1;
    f.status = S_CALL;
    return;
  }
  f.pc = pc;
  f.sp = sp;
  f.status = status;
  const keep = keepsGas(status);
  if (tracer !== undefined && !keep) {
    f.gas = gas;
    traceFault(ev, f, pc < codeLen ? code[pc]! : 0, STATUS_NAMES[status]!);
  }
  f.gas = keep ? gas : 0;
  if (!keep) f.gasExtra = 0n;
}
