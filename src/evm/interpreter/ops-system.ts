// Out-of-line opcodes that change the world or start frames: SSTORE, CALL*, CREATE*, RETURN/REVERT,
// SELFDESTRUCT. Each reads and writes the frame's sp and gas fields and returns an S_* code.
import { EMPTY_BYTES, MASK160 } from '../../primitives/bytes.ts';
import { create2Address, createAddress, delegationTarget } from '../addresses.ts';
import { beginCall, beginCreate, MAX_INITCODE_SIZE } from '../frame-boundary.ts';
import {
  Evm,
  Frame,
  isSuccess,
  K_CALL,
  K_CALLCODE,
  K_CREATE,
  K_CREATE2,
  K_DELEGATECALL,
  K_STATICCALL,
  S_CALL,
  S_OOG,
  S_RETURN,
  S_STOP,
  S_REVERT,
  S_RUNNING,
  S_STATIC,
  setGas,
  totalGas,
} from './context.ts';
import { analysisCache, analyze } from './analysis.ts';
import {
  CALL_STIPEND,
  CALL_VALUE,
  COLD_ACCOUNT_ACCESS,
  COLD_SLOAD,
  INITCODE_WORD,
  KECCAK_WORD,
  NEW_ACCOUNT,
  SSTORE_SENTRY,
  sstoreGas,
  sstoreRefund,
} from './gas.ts';
import { accessCost, chargeMemory } from './ops-env.ts';
import { Op } from './opcodes.ts';

const MAX_DEPTH = 1024;
const NONCE_MAX = (1n << 64n) - 1n;

/** SSTORE with EIP-2200/2929/3529 pricing and refunds. */
export function sstore(ev: Evm, f: Frame): number {
  if (f.isStatic) return S_STATIC;
  if (f.gas <= SSTORE_SENTRY) return S_OOG;
  const world = ev.world;
  const st = f.stack;
  const key = st[f.sp - 1]!;
  const value = st[f.sp - 2]!;
  const acc = f.acc;
  const cold = world.warmSlot(acc, key) ? 0 : COLD_SLOAD;
  const current = world.storage(acc, key);
  const original = world.originalStorage(acc, key);
  const cost = cold + sstoreGas(original, current, value);
  if (f.gas < cost) return S_OOG;
  f.gas -= cost;
  if (current !== value) {
    ev.refund += sstoreRefund(original, current, value);
    world.setStorage(acc, key, value);
  }
  f.sp -= 2;
  return S_RUNNING;
}

/** CALL, CALLCODE, DELEGATECALL, STATICCALL. */
export function call(ev: Evm, f: Frame, op: number): number {
  const world = ev.world;
  const st = f.stack;
  let i = f.sp - 1;
  const gasReq = st[i--]!;
  const to = st[i--]! & MASK160;
  const hasValue = op === Op.CALL || op === Op.CALLCODE;
  const value = hasValue ? st[i--]! : 0n;
  const inOffB = st[i--]!;
  const inSizeB = st[i--]!;
  const outOffB = st[i--]!;
  const outSizeB = st[i--]!;
  f.sp = i + 1;

  const inOff = chargeMemory(f, inOffB, inSizeB);
  if (inOff < 0) return S_OOG;
  const outOff = chargeMemory(f, outOffB, outSizeB);
  if (outOff < 0) return S_OOG;
  if (op === Op.CALL && value !== 0n && f.isStatic) return S_STATIC;

  const target = world.account(to);
  let cost = accessCost(ev, target);
  let codeAcc = target;
  let delegated = false;
  if (!target.codeEmpty) {
    const d = delegationTarget(world.code(target));
    if (d >= 0n) {
      codeAcc = world.account(d);
      cost += accessCost(ev, codeAcc);
      delegated = true;
    }
  }
  if (value !== 0n) {
    cost += CALL_VALUE;
    if (op === Op.CALL && target.isDead()) cost += NEW_ACCOUNT;
  }
  if (f.gas < cost) return S_OOG;
  f.gas -= cost;
  let callGas = 0;
  let callGasBig = 0n;
  if (f.gasExtra === 0n) {
    const avail = f.gas - Math.floor(f.gas / 64);
    callGas = gasReq > BigInt(avail) ? avail : Number(gasReq);
    f.gas -= callGas;
    if (value !== 0n) callGas += CALL_STIPEND;
  } else {
    const total = totalGas(f);
    const avail = total - total / 64n;
    callGasBig = gasReq > avail ? avail : gasReq;
    setGas(f, total - callGasBig);
    if (value !== 0n) callGasBig += BigInt(CALL_STIPEND);
  }
  f.returnData = EMPTY_BYTES;

  if ((value !== 0n && f.acc.balance < value) || f.depth + 1 > MAX_DEPTH) {
    if (callGasBig === 0n && f.gas + callGas <= Number.MAX_SAFE_INTEGER) f.gas += callGas;
    else setGas(f, totalGas(f) + callGasBig + BigInt(callGas));
    st[f.sp++] = 0n;
    return S_RUNNING;
  }

  const c = ev.frame(f.depth + 1);
  if (callGasBig === 0n) c.gas = callGas;
  else setGas(c, callGasBig);
  c.codeAddress = to;
  c.input = inSizeB === 0n ? EMPTY_BYTES : f.mem.slice(inOff, Number(inSizeB));
  switch (op) {
    case Op.CALL:
      c.kind = K_CALL;
      c.caller = f.address;
      c.address = to;
      c.value = value;
      c.isStatic = f.isStatic;
      break;
    case Op.CALLCODE:
      c.kind = K_CALLCODE;
      c.caller = f.address;
      c.address = f.address;
      c.value = value;
      c.isStatic = f.isStatic;
      break;
    case Op.DELEGATECALL:
      c.kind = K_DELEGATECALL;
      c.caller = f.caller;
      c.address = f.address;
      c.value = f.value;
      c.isStatic = f.isStatic;
      break;
    default:
      c.kind = K_STATICCALL;
      c.caller = f.address;
      c.address = to;
      c.value = 0n;
      c.isStatic = true;
      break;
  }
  const precompile = delegated ? undefined : ev.precompiles.get(to);
  if (precompile === undefined) {
    c.code = world.code(codeAcc);
    c.analysis = c.code.length === 0 ? undefined : analysisCache.get(codeAcc.codeHash, c.code);
  } else {
    c.code = EMPTY_BYTES;
    c.analysis = undefined;
  }
  f.retOff = outOff;
  f.retSize = outSizeB === 0n ? 0 : Number(outSizeB);
  if (beginCall(ev, c, op === Op.CALL, precompile)) return S_CALL;
  completeCall(f, c);
  return S_RUNNING;
}

/** The rest of a CALL* once its child `c` has finished: gas back, result pushed, output copied. */
export function completeCall(f: Frame, c: Frame): void {
  returnGas(f, c);
  const out = c.output;
  f.returnData = out;
  f.stack[f.sp++] = isSuccess(c.status) ? 1n : 0n;
  if (f.retSize !== 0 && out.length > 0) {
    const n = Math.min(f.retSize, out.length);
    f.mem.buf.set(n === out.length ? out : out.subarray(0, n), f.retOff);
  }
}

/** CREATE and CREATE2. */
export function create(ev: Evm, f: Frame, isCreate2: boolean): number {
  if (f.isStatic) return S_STATIC;
  const world = ev.world;
  const st = f.stack;
  const sp = f.sp;
  const value = st[sp - 1]!;
  const offB = st[sp - 2]!;
  const sizeB = st[sp - 3]!;
  const salt = isCreate2 ? st[sp - 4]! : 0n;
  f.sp -= isCreate2 ? 4 : 3;
  const off = chargeMemory(f, offB, sizeB);
  if (off < 0) return S_OOG;
  const size = Number(sizeB);
  if (size > MAX_INITCODE_SIZE) return S_OOG;
  const words = Math.ceil(size / 32);
  const cost = INITCODE_WORD * words + (isCreate2 ? KECCAK_WORD * words : 0);
  if (f.gas < cost) return S_OOG;
  f.gas -= cost;

  const total = totalGas(f);
  const callGas = total - total / 64n;
  setGas(f, total - callGas);
  f.returnData = EMPTY_BYTES;
  const me = f.acc;
  if (me.balance < value || me.nonce === NONCE_MAX || f.depth + 1 > MAX_DEPTH) {
    setGas(f, total);
    st[f.sp++] = 0n;
    return S_RUNNING;
  }
  const initcode = size === 0 ? EMPTY_BYTES : f.mem.slice(off, size);
  const addr = isCreate2 ? create2Address(f.address, salt, initcode) : createAddress(f.address, me.nonce);
  const newAcc = world.account(addr);
  world.warmAddress(newAcc);
  const collision = newAcc.nonce !== 0n || !newAcc.codeEmpty || world.hasStorage(newAcc);
  world.setNonce(me, me.nonce + 1n);
  if (collision) {
    st[f.sp++] = 0n;
    return S_RUNNING;
  }
  const c = ev.frame(f.depth + 1);
  c.kind = isCreate2 ? K_CREATE2 : K_CREATE;
  c.caller = f.address;
  c.address = addr;
  c.codeAddress = addr;
  c.value = value;
  c.input = EMPTY_BYTES;
  c.code = initcode;
  c.analysis = size === 0 ? undefined : analyze(initcode);
  c.isStatic = false;
  setGas(c, callGas);
  if (beginCreate(ev, c)) return S_CALL;
  completeCreate(f, c);
  return S_RUNNING;
}

/** The rest of a CREATE* once its child `c` has finished: gas back, address (or 0) pushed. */
export function completeCreate(f: Frame, c: Frame): void {
  returnGas(f, c);
  if (isSuccess(c.status)) {
    f.stack[f.sp++] = c.address;
  } else {
    f.returnData = c.output;
    f.stack[f.sp++] = 0n;
  }
}

/** Gives a finished child's gas back to its parent. */
function returnGas(f: Frame, c: Frame): void {
  // Two doubles below 2^53 can sum above it (a parent just past 2^53 keeps 1/64, the child returns the rest):
  // a sum above MAX_SAFE_INTEGER is redone exactly.
  const sum = f.gas + c.gas;
  if (sum <= Number.MAX_SAFE_INTEGER && f.gasExtra === 0n && c.gasExtra === 0n) f.gas = sum;
  else setGas(f, totalGas(f) + totalGas(c));
}

/** RETURN and REVERT. */
export function ret(_ev: Evm, f: Frame, revert: boolean): number {
  const st = f.stack;
  const sizeB = st[f.sp - 2]!;
  const off = chargeMemory(f, st[f.sp - 1]!, sizeB);
  if (off < 0) return S_OOG;
  f.output = sizeB === 0n ? EMPTY_BYTES : f.mem.slice(off, Number(sizeB));
  f.sp -= 2;
  return revert ? S_REVERT : S_RETURN;
}

/** SELFDESTRUCT per EIP-6780: moves the balance; deletes only an account created in this tx. */
export function selfdestruct(ev: Evm, f: Frame): number {
  const world = ev.world;
  const ben = world.account(f.stack[f.sp - 1]! & MASK160);
  const me = f.acc;
  let cost = world.warmAddress(ben) ? 0 : COLD_ACCOUNT_ACCESS;
  if (ben.isDead() && me.balance !== 0n) cost += NEW_ACCOUNT;
  if (f.gas < cost) return S_OOG;
  f.gas -= cost;
  if (f.isStatic) return S_STATIC;
  f.sp--;
  const bal = me.balance;
  if (ben !== me) {
    if (bal !== 0n) {
      world.setBalance(ben, ben.balance + bal);
      world.setBalance(me, 0n);
    }
    world.touch(ben);
  }
  if (me.createdInTx) {
    if (me.balance !== 0n) world.setBalance(me, 0n);
    world.destruct(me);
  }
  return S_STOP;
}
