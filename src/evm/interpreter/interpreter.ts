// The interpreter loop: one flat switch over the opcode byte with pc, sp and gas in locals. Arithmetic, stack,
// jump, memory-word and storage opcodes run inline; rarer and larger opcodes live in ops-*.ts and see the frame
// through its fields (synced around the call). The tracer branch tests one local per step and is never taken
// without a tracer.
import { MASK160, MASK256, SIGN_BIT, wordAt } from '../../primitives/bytes.ts';
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
import * as env from './ops-env.ts';
import * as sys from './ops-system.ts';

const NEG1 = MASK256;
const TWO256 = 1n << 256n;

function toSigned(a: bigint): bigint {
  return a >= SIGN_BIT ? a - (1n << 256n) : a;
}

function exp(base: bigint, e: bigint): bigint {
  let r = 1n;
  let b = base;
  while (e > 0n) {
    if (e & 1n) r = (r * b) & MASK256;
    e >>= 1n;
    if (e > 0n) b = (b * b) & MASK256;
  }
  return r;
}

/** 0n..256n, so CLZ pushes a shared bigint instead of allocating one. */
const SMALL: readonly bigint[] = Array.from({ length: 257 }, (_, i) => BigInt(i));

/** EIP-7939: the leading zero bits of a 256-bit word (256 for 0), from its hex length and first digit. */
export function clz(x: bigint): bigint {
  if (x === 0n) return 256n;
  const hex = x.toString(16);
  return SMALL[256 - 4 * hex.length + Math.clz32(parseInt(hex[0]!, 16)) - 28]!;
}

function byteLength(v: bigint): number {
  return v === 0n ? 0 : Math.ceil(v.toString(16).length / 2);
}

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
      case 0x00:
        status = S_STOP;
        break;
      case 0x01: {
        // A compare instead of a mask: `& MASK256` allocates a fresh 256-bit result even when nothing wraps.
        sp--;
        const r = stack[sp - 1]! + stack[sp]!;
        stack[sp - 1] = r > MASK256 ? r - TWO256 : r;
        break;
      }
      case 0x02:
        sp--;
        stack[sp - 1] = (stack[sp - 1]! * stack[sp]!) & MASK256;
        break;
      case 0x03: {
        sp--;
        const r = stack[sp]! - stack[sp - 1]!;
        stack[sp - 1] = r < 0n ? r + TWO256 : r;
        break;
      }
      case 0x04: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : stack[sp]! / b;
        break;
      }
      case 0x05: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : (toSigned(stack[sp]!) / toSigned(b)) & MASK256;
        break;
      }
      case 0x06: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : stack[sp]! % b;
        break;
      }
      case 0x07: {
        sp--;
        const b = stack[sp - 1]!;
        stack[sp - 1] = b === 0n ? 0n : (toSigned(stack[sp]!) % toSigned(b)) & MASK256;
        break;
      }
      case 0x08: {
        sp -= 2;
        const n = stack[sp - 1]!;
        stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! + stack[sp]!) % n;
        break;
      }
      case 0x09: {
        sp -= 2;
        const n = stack[sp - 1]!;
        stack[sp - 1] = n === 0n ? 0n : (stack[sp + 1]! * stack[sp]!) % n;
        break;
      }
      case 0x0a: {
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
      case 0x0b: {
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
      case 0x10:
        sp--;
        stack[sp - 1] = stack[sp]! < stack[sp - 1]! ? 1n : 0n;
        break;
      case 0x11:
        sp--;
        stack[sp - 1] = stack[sp]! > stack[sp - 1]! ? 1n : 0n;
        break;
      case 0x12:
        sp--;
        stack[sp - 1] = toSigned(stack[sp]!) < toSigned(stack[sp - 1]!) ? 1n : 0n;
        break;
      case 0x13:
        sp--;
        stack[sp - 1] = toSigned(stack[sp]!) > toSigned(stack[sp - 1]!) ? 1n : 0n;
        break;
      case 0x14:
        sp--;
        stack[sp - 1] = stack[sp]! === stack[sp - 1]! ? 1n : 0n;
        break;
      case 0x15:
        stack[sp - 1] = stack[sp - 1]! === 0n ? 1n : 0n;
        break;
      case 0x16:
        sp--;
        stack[sp - 1] = stack[sp]! & stack[sp - 1]!;
        break;
      case 0x17:
        sp--;
        stack[sp - 1] = stack[sp]! | stack[sp - 1]!;
        break;
      case 0x18:
        sp--;
        stack[sp - 1] = stack[sp]! ^ stack[sp - 1]!;
        break;
      case 0x19:
        stack[sp - 1] = NEG1 ^ stack[sp - 1]!;
        break;
      case 0x1a: {
        sp--;
        const i = stack[sp]!;
        stack[sp - 1] = i < 32n ? (stack[sp - 1]! >> (8n * (31n - i))) & 0xffn : 0n;
        break;
      }
      case 0x1b: {
        sp--;
        const s = stack[sp]!;
        stack[sp - 1] = s < 256n ? (stack[sp - 1]! << s) & MASK256 : 0n;
        break;
      }
      case 0x1c: {
        sp--;
        const s = stack[sp]!;
        stack[sp - 1] = s < 256n ? stack[sp - 1]! >> s : 0n;
        break;
      }
      case 0x1d: {
        sp--;
        const s = stack[sp]!;
        const v = toSigned(stack[sp - 1]!);
        stack[sp - 1] = (v >> (s < 256n ? s : 256n)) & MASK256;
        break;
      }
      case 0x1e:
        stack[sp - 1] = clz(stack[sp - 1]!);
        break;
      case 0x30:
        stack[sp++] = f.address;
        break;
      case 0x32:
        stack[sp++] = ev.origin;
        break;
      case 0x33:
        stack[sp++] = f.caller;
        break;
      case 0x34:
        stack[sp++] = f.value;
        break;
      case 0x35: {
        const o = stack[sp - 1]!;
        stack[sp - 1] = o >= inputLenBig ? 0n : wordAt(input, Number(o));
        break;
      }
      case 0x36:
        stack[sp++] = inputLenBig;
        break;
      case 0x38:
        stack[sp++] = codeLenBig;
        break;
      case 0x3a:
        stack[sp++] = ev.gasPrice;
        break;
      case 0x3d:
        stack[sp++] = BigInt(f.returnData.length);
        break;
      case 0x41:
        stack[sp++] = ev.block.coinbase;
        break;
      case 0x42:
        stack[sp++] = ev.block.timestamp;
        break;
      case 0x43:
        stack[sp++] = ev.block.number;
        break;
      case 0x44:
        stack[sp++] = ev.block.prevRandao;
        break;
      case 0x45:
        stack[sp++] = ev.block.gasLimit;
        break;
      case 0x46:
        stack[sp++] = ev.block.chainId;
        break;
      case 0x47:
        stack[sp++] = f.acc.balance;
        break;
      case 0x48:
        stack[sp++] = ev.block.baseFee;
        break;
      case 0x4a:
        stack[sp++] = ev.block.blobBaseFee;
        break;
      case 0x50:
        sp--;
        break;
      case 0x51: {
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
      case 0x52:
      case 0x53: {
        const o = stack[sp - 1]!;
        if (o > MEM_LIMIT_BIG) {
          status = S_OOG;
          break;
        }
        const off = Number(o);
        const end = off + (op === 0x52 ? 32 : 1);
        if (end > mem.size) {
          const c = mem.expansionCost(end);
          if (gas < c) {
            status = S_OOG;
            break;
          }
          gas -= c;
          mem.grow(end);
        }
        if (op === 0x52) mem.storeWord(off, stack[sp - 2]!);
        else mem.buf[off] = Number(stack[sp - 2]! & 0xffn);
        sp -= 2;
        break;
      }
      case 0x54: {
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
      case 0x55: {
        f.sp = sp;
        f.gas = gas;
        status = sys.sstore(ev, f);
        sp = f.sp;
        gas = f.gas;
        break;
      }
      case 0x56: {
        const d = stack[--sp]!;
        if (d >= codeLenBig || jumpdests[Number(d)] !== 1) {
          status = S_BAD_JUMP;
          break;
        }
        pc = Number(d);
        if (deadline !== 0) jumpDeadline(ev);
        continue;
      }
      case 0x57: {
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
      case 0x58:
        stack[sp++] = BigInt(pc);
        break;
      case 0x59:
        stack[sp++] = BigInt(mem.size);
        break;
      case 0x5a:
        stack[sp++] = f.gasExtra === 0n ? BigInt(gas) : BigInt(gas) + f.gasExtra;
        break;
      case 0x5b:
        break;
      case 0x5c:
        stack[sp - 1] = world.tload(f.acc, stack[sp - 1]!);
        break;
      case 0x5d:
        if (f.isStatic) {
          status = S_STATIC;
          break;
        }
        sp -= 2;
        world.tstore(f.acc, stack[sp + 1]!, stack[sp]!);
        break;
      case 0x5f:
        stack[sp++] = 0n;
        break;
      case 0x60:
      case 0x61:
      case 0x62:
      case 0x63:
      case 0x64:
      case 0x65:
      case 0x66:
      case 0x67:
      case 0x68:
      case 0x69:
      case 0x6a:
      case 0x6b:
      case 0x6c:
      case 0x6d:
      case 0x6e:
      case 0x6f:
      case 0x70:
      case 0x71:
      case 0x72:
      case 0x73:
      case 0x74:
      case 0x75:
      case 0x76:
      case 0x77:
      case 0x78:
      case 0x79:
      case 0x7a:
      case 0x7b:
      case 0x7c:
      case 0x7d:
      case 0x7e:
      case 0x7f: {
        const n = op - 0x5f;
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
      case 0x80:
      case 0x81:
      case 0x82:
      case 0x83:
      case 0x84:
      case 0x85:
      case 0x86:
      case 0x87:
      case 0x88:
      case 0x89:
      case 0x8a:
      case 0x8b:
      case 0x8c:
      case 0x8d:
      case 0x8e:
      case 0x8f:
        stack[sp] = stack[sp - (op - 0x7f)]!;
        sp++;
        break;
      case 0x90:
      case 0x91:
      case 0x92:
      case 0x93:
      case 0x94:
      case 0x95:
      case 0x96:
      case 0x97:
      case 0x98:
      case 0x99:
      case 0x9a:
      case 0x9b:
      case 0x9c:
      case 0x9d:
      case 0x9e:
      case 0x9f: {
        const j = sp - 2 - (op - 0x90);
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

function outOfLine(ev: Evm, f: Frame, op: number): number {
  switch (op) {
    case 0x20:
      return env.keccak(ev, f);
    case 0x31:
      return env.balance(ev, f);
    case 0x37:
      return env.calldatacopy(ev, f);
    case 0x39:
      return env.codecopy(ev, f);
    case 0x3b:
      return env.extcodesize(ev, f);
    case 0x3c:
      return env.extcodecopy(ev, f);
    case 0x3e:
      return env.returndatacopy(ev, f);
    case 0x3f:
      return env.extcodehash(ev, f);
    case 0x40:
      return env.blockhash(ev, f);
    case 0x49:
      return env.blobhash(ev, f);
    case 0x5e:
      return env.mcopy(ev, f);
    case 0xa0:
    case 0xa1:
    case 0xa2:
    case 0xa3:
    case 0xa4:
      return env.log(ev, f, op - 0xa0);
    case 0xf0:
    case 0xf5:
      return sys.create(ev, f, op === 0xf5);
    case 0xf1:
    case 0xf2:
    case 0xf4:
    case 0xfa:
      return sys.call(ev, f, op);
    case 0xf3:
    case 0xfd:
      return sys.ret(ev, f, op === 0xfd);
    case 0xff:
      return sys.selfdestruct(ev, f);
  }
  return S_INVALID;
}

/** Address from a stack word. */
export function toAddress(w: bigint): bigint {
  return w & MASK160;
}
