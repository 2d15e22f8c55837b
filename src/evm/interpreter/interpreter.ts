// The interpreter loop: one flat switch over the opcode byte with pc, sp and gas in locals. Arithmetic, stack,
// jump, memory-word and storage opcodes run inline; rarer and larger opcodes live in ops-*.ts and see the frame
// through its fields (synced around the call). The tracer branch tests one local per step and is never taken
// without a tracer. Labels are `0x54 satisfies Op.SLOAD`: literals keep V8's jump table (opcodes.ts says why).
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
import { STACK_IN, STACK_MAX } from './opcodes.ts';
import type { Op } from './opcodes.ts';
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
      case 0x00 satisfies Op.STOP:
        status = S_STOP;
        break;
      case 0x01 satisfies Op.ADD: {
        // A compare instead of a mask: `& MASK256` allocates a fresh 256-bit result even when nothing wraps.
        sp--;
        const r = stack[sp - 1]! + stack[sp]!;
        stack[sp - 1] = r > MASK256 ? r - TWO256 : r;
        break;
      }
      case 0x02 satisfies Op.MUL:
        sp--;
        stack[sp - 1] = (stack[sp - 1]! * stack[sp]!) & MASK256;
        break;
      case 0x03 satisfies Op.SUB: {
        sp--;
        const r = stack[sp]! - stack[sp - 1]!;
        stack[sp - 1] = r < 0n ? r + TWO256 : r;
        break;
      }
      case 0x04 satisfies Op.DIV: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : stack[sp]! / b;
        break;
      }
      case 0x05 satisfies Op.SDIV: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : (toSigned(stack[sp]!) / toSigned(b)) & MASK256;
        break;
      }
      case 0x06 satisfies Op.MOD: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : stack[sp]! % b;
        break;
      }
      case 0x07 satisfies Op.SMOD: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : (toSigned(stack[sp]!) % toSigned(b)) & MASK256;
        break;
      }
      case 0x08 satisfies Op.ADDMOD: {
        sp -= 2;
        const n = stack[sp - 1]!;
        stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! + stack[sp]!) % n;
        break;
      }
      case 0x09 satisfies Op.MULMOD: {
        sp -= 2;
        const n = stack[sp - 1]!;
        stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! * stack[sp]!) % n;
        break;
      }
      case 0x0a satisfies Op.EXP: {
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
      case 0x0b satisfies Op.SIGNEXTEND: {
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
      case 0x10 satisfies Op.LT:
        sp--;
        stack[sp - 1] = stack[sp]! < stack[sp - 1]! ? 1n : 0n;
        break;
      case 0x11 satisfies Op.GT:
        sp--;
        stack[sp - 1] = stack[sp]! > stack[sp - 1]! ? 1n : 0n;
        break;
      case 0x12 satisfies Op.SLT:
        sp--;
        stack[sp - 1] = toSigned(stack[sp]!) < toSigned(stack[sp - 1]!) ? 1n : 0n;
        break;
      case 0x13 satisfies Op.SGT:
        sp--;
        stack[sp - 1] = toSigned(stack[sp]!) > toSigned(stack[sp - 1]!) ? 1n : 0n;
        break;
      case 0x14 satisfies Op.EQ:
        sp--;
        stack[sp - 1] = stack[sp]! === stack[sp - 1]! ? 1n : 0n;
        break;
      case 0x15 satisfies Op.ISZERO:
        stack[sp - 1] = stack[sp - 1]! === 0n ? 1n : 0n;
        break;
      case 0x16 satisfies Op.AND:
        sp--;
        stack[sp - 1] = stack[sp]! & stack[sp - 1]!;
        break;
      case 0x17 satisfies Op.OR:
        sp--;
        stack[sp - 1] = stack[sp]! | stack[sp - 1]!;
        break;
      case 0x18 satisfies Op.XOR:
        sp--;
        stack[sp - 1] = stack[sp]! ^ stack[sp - 1]!;
        break;
      case 0x19 satisfies Op.NOT:
        stack[sp - 1] = NEG1 ^ stack[sp - 1]!;
        break;
      case 0x1a satisfies Op.BYTE: {
        sp--;
        const i = stack[sp]!;
        stack[sp - 1] = i < 32n ? (stack[sp - 1]! >> (8n * (31n - i))) & 0xffn : 0n;
        break;
      }
      case 0x1b satisfies Op.SHL: {
        sp--;
        const s = stack[sp]!;
        stack[sp - 1] = s < 256n ? (stack[sp - 1]! << s) & MASK256 : 0n;
        break;
      }
      case 0x1c satisfies Op.SHR: {
        sp--;
        const s = stack[sp]!;
        stack[sp - 1] = s < 256n ? stack[sp - 1]! >> s : 0n;
        break;
      }
      case 0x1d satisfies Op.SAR: {
        sp--;
        const s = stack[sp]!;
        const v = toSigned(stack[sp - 1]!);
        stack[sp - 1] = (v >> (s < 256n ? s : 256n)) & MASK256;
        break;
      }
      case 0x1e satisfies Op.CLZ:
        stack[sp - 1] = clz(stack[sp - 1]!);
        break;
      case 0x30 satisfies Op.ADDRESS:
        stack[sp++] = f.address;
        break;
      case 0x32 satisfies Op.ORIGIN:
        stack[sp++] = ev.origin;
        break;
      case 0x33 satisfies Op.CALLER:
        stack[sp++] = f.caller;
        break;
      case 0x34 satisfies Op.CALLVALUE:
        stack[sp++] = f.value;
        break;
      case 0x35 satisfies Op.CALLDATALOAD: {
        const o = stack[sp - 1]!;
        stack[sp - 1] = o >= inputLenBig ? 0n : wordAt(input, Number(o));
        break;
      }
      case 0x36 satisfies Op.CALLDATASIZE:
        stack[sp++] = inputLenBig;
        break;
      case 0x38 satisfies Op.CODESIZE:
        stack[sp++] = codeLenBig;
        break;
      case 0x3a satisfies Op.GASPRICE:
        stack[sp++] = ev.gasPrice;
        break;
      case 0x3d satisfies Op.RETURNDATASIZE:
        stack[sp++] = BigInt(f.returnData.length);
        break;
      case 0x41 satisfies Op.COINBASE:
        stack[sp++] = ev.block.coinbase;
        break;
      case 0x42 satisfies Op.TIMESTAMP:
        stack[sp++] = ev.block.timestamp;
        break;
      case 0x43 satisfies Op.NUMBER:
        stack[sp++] = ev.block.number;
        break;
      case 0x44 satisfies Op.PREVRANDAO:
        stack[sp++] = ev.block.prevRandao;
        break;
      case 0x45 satisfies Op.GASLIMIT:
        stack[sp++] = ev.block.gasLimit;
        break;
      case 0x46 satisfies Op.CHAINID:
        stack[sp++] = ev.block.chainId;
        break;
      case 0x47 satisfies Op.SELFBALANCE:
        stack[sp++] = f.acc.balance;
        break;
      case 0x48 satisfies Op.BASEFEE:
        stack[sp++] = ev.block.baseFee;
        break;
      case 0x4a satisfies Op.BLOBBASEFEE:
        stack[sp++] = ev.block.blobBaseFee;
        break;
      case 0x50 satisfies Op.POP:
        sp--;
        break;
      case 0x51 satisfies Op.MLOAD: {
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
      case 0x52 satisfies Op.MSTORE:
      case 0x53 satisfies Op.MSTORE8: {
        const o = stack[sp - 1]!;
        if (o > MEM_LIMIT_BIG) {
          status = S_OOG;
          break;
        }
        const off = Number(o);
        const end = off + (op === (0x52 satisfies Op.MSTORE) ? 32 : 1);
        if (end > mem.size) {
          const c = mem.expansionCost(end);
          if (gas < c) {
            status = S_OOG;
            break;
          }
          gas -= c;
          mem.grow(end);
        }
        if (op === (0x52 satisfies Op.MSTORE)) mem.storeWord(off, stack[sp - 2]!);
        else mem.buf[off] = Number(stack[sp - 2]! & 0xffn);
        sp -= 2;
        break;
      }
      case 0x54 satisfies Op.SLOAD: {
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
      case 0x55 satisfies Op.SSTORE: {
        f.sp = sp;
        f.gas = gas;
        status = sys.sstore(ev, f);
        sp = f.sp;
        gas = f.gas;
        break;
      }
      case 0x56 satisfies Op.JUMP: {
        const d = stack[--sp]!;
        if (d >= codeLenBig || jumpdests[Number(d)] !== 1) {
          status = S_BAD_JUMP;
          break;
        }
        pc = Number(d);
        if (deadline !== 0) jumpDeadline(ev);
        continue;
      }
      case 0x57 satisfies Op.JUMPI: {
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
      case 0x58 satisfies Op.PC:
        stack[sp++] = BigInt(pc);
        break;
      case 0x59 satisfies Op.MSIZE:
        stack[sp++] = BigInt(mem.size);
        break;
      case 0x5a satisfies Op.GAS:
        stack[sp++] = f.gasExtra === 0n ? BigInt(gas) : BigInt(gas) + f.gasExtra;
        break;
      case 0x5b satisfies Op.JUMPDEST:
        break;
      case 0x5c satisfies Op.TLOAD:
        stack[sp - 1] = world.tload(f.acc, stack[sp - 1]!);
        break;
      case 0x5d satisfies Op.TSTORE:
        if (f.isStatic) {
          status = S_STATIC;
          break;
        }
        sp -= 2;
        world.tstore(f.acc, stack[sp + 1]!, stack[sp]!);
        break;
      case 0x5f satisfies Op.PUSH0:
        stack[sp++] = 0n;
        break;
      case 0x60 satisfies Op.PUSH1:
      case 0x61 satisfies Op.PUSH2:
      case 0x62 satisfies Op.PUSH3:
      case 0x63 satisfies Op.PUSH4:
      case 0x64 satisfies Op.PUSH5:
      case 0x65 satisfies Op.PUSH6:
      case 0x66 satisfies Op.PUSH7:
      case 0x67 satisfies Op.PUSH8:
      case 0x68 satisfies Op.PUSH9:
      case 0x69 satisfies Op.PUSH10:
      case 0x6a satisfies Op.PUSH11:
      case 0x6b satisfies Op.PUSH12:
      case 0x6c satisfies Op.PUSH13:
      case 0x6d satisfies Op.PUSH14:
      case 0x6e satisfies Op.PUSH15:
      case 0x6f satisfies Op.PUSH16:
      case 0x70 satisfies Op.PUSH17:
      case 0x71 satisfies Op.PUSH18:
      case 0x72 satisfies Op.PUSH19:
      case 0x73 satisfies Op.PUSH20:
      case 0x74 satisfies Op.PUSH21:
      case 0x75 satisfies Op.PUSH22:
      case 0x76 satisfies Op.PUSH23:
      case 0x77 satisfies Op.PUSH24:
      case 0x78 satisfies Op.PUSH25:
      case 0x79 satisfies Op.PUSH26:
      case 0x7a satisfies Op.PUSH27:
      case 0x7b satisfies Op.PUSH28:
      case 0x7c satisfies Op.PUSH29:
      case 0x7d satisfies Op.PUSH30:
      case 0x7e satisfies Op.PUSH31:
      case 0x7f satisfies Op.PUSH32: {
        const n = op - (0x5f satisfies Op.PUSH0);
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
      case 0x80 satisfies Op.DUP1:
      case 0x81 satisfies Op.DUP2:
      case 0x82 satisfies Op.DUP3:
      case 0x83 satisfies Op.DUP4:
      case 0x84 satisfies Op.DUP5:
      case 0x85 satisfies Op.DUP6:
      case 0x86 satisfies Op.DUP7:
      case 0x87 satisfies Op.DUP8:
      case 0x88 satisfies Op.DUP9:
      case 0x89 satisfies Op.DUP10:
      case 0x8a satisfies Op.DUP11:
      case 0x8b satisfies Op.DUP12:
      case 0x8c satisfies Op.DUP13:
      case 0x8d satisfies Op.DUP14:
      case 0x8e satisfies Op.DUP15:
      case 0x8f satisfies Op.DUP16:
        stack[sp] = stack[sp - (op - (0x80 satisfies Op.DUP1) + 1)]!;
        sp++;
        break;
      case 0x90 satisfies Op.SWAP1:
      case 0x91 satisfies Op.SWAP2:
      case 0x92 satisfies Op.SWAP3:
      case 0x93 satisfies Op.SWAP4:
      case 0x94 satisfies Op.SWAP5:
      case 0x95 satisfies Op.SWAP6:
      case 0x96 satisfies Op.SWAP7:
      case 0x97 satisfies Op.SWAP8:
      case 0x98 satisfies Op.SWAP9:
      case 0x99 satisfies Op.SWAP10:
      case 0x9a satisfies Op.SWAP11:
      case 0x9b satisfies Op.SWAP12:
      case 0x9c satisfies Op.SWAP13:
      case 0x9d satisfies Op.SWAP14:
      case 0x9e satisfies Op.SWAP15:
      case 0x9f satisfies Op.SWAP16: {
        const j = sp - 2 - (op - (0x90 satisfies Op.SWAP1));
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
