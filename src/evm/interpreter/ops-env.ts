// Out-of-line opcodes that read the environment or copy bytes: KECCAK256, BALANCE, EXT*, *COPY, BLOCKHASH,
// BLOBHASH, MCOPY, LOG. Each reads and writes the frame's sp and gas fields and returns an S_* code.
import { bytesToBigint, MASK160, wordToBytes } from '../../primitives/bytes.ts';
import { keccakWord } from '../../primitives/keccak.ts';
import { Evm, Frame, S_OOG, S_RETURNDATA_OOB, S_RUNNING, S_STATIC } from './context.ts';
import { COLD_ACCOUNT_ACCESS, COPY_WORD, KECCAK_WORD, LOG_DATA_BYTE, WARM_ACCESS } from './gas.ts';
import { MEM_LIMIT, MEM_LIMIT_BIG } from './memory.ts';
import type { Account } from '../state/account.ts';

/**
 * Charges the expansion of memory to cover [off, off+size) from f.gas. Returns the offset as a number, or -1 when
 * out of gas (including offsets past MEM_LIMIT). A zero size touches no memory, whatever the offset.
 */
export function chargeMemory(f: Frame, offB: bigint, sizeB: bigint): number {
  if (sizeB === 0n) return 0;
  if (offB > MEM_LIMIT_BIG || sizeB > MEM_LIMIT_BIG) return -1;
  const off = Number(offB);
  const end = off + Number(sizeB);
  if (end > MEM_LIMIT) return -1;
  const c = f.mem.expansionCost(end);
  if (f.gas < c) return -1;
  f.gas -= c;
  f.mem.grow(end);
  return off;
}

/** Charges `cost` from f.gas; false when out of gas. */
function charge(f: Frame, cost: number): boolean {
  if (f.gas < cost) return false;
  f.gas -= cost;
  return true;
}

/** Words of a byte count below 2^33. */
function words(size: number): number {
  return Math.ceil(size / 32);
}

/** Copies src[srcOff, srcOff+size) into memory at dest, zero-filling what lies past src's end. */
function copyPadded(f: Frame, dest: number, src: Uint8Array, srcOffB: bigint, size: number): void {
  const buf = f.mem.buf;
  if (srcOffB >= BigInt(src.length)) {
    buf.fill(0, dest, dest + size);
    return;
  }
  const srcOff = Number(srcOffB);
  const avail = Math.min(size, src.length - srcOff);
  buf.set(src.subarray(srcOff, srcOff + avail), dest);
  if (avail < size) buf.fill(0, dest + avail, dest + size);
}

/** The EIP-2929 cost of touching `a`, warming it. */
export function accessCost(ev: Evm, a: Account): number {
  return ev.world.warmAddress(a) ? WARM_ACCESS : COLD_ACCOUNT_ACCESS;
}

/** KECCAK256. */
export function keccak(_ev: Evm, f: Frame): number {
  const st = f.stack;
  const offB = st[f.sp - 1]!;
  const sizeB = st[f.sp - 2]!;
  const off = chargeMemory(f, offB, sizeB);
  if (off < 0) return S_OOG;
  const size = Number(sizeB);
  if (!charge(f, KECCAK_WORD * words(size))) return S_OOG;
  f.sp--;
  st[f.sp - 1] = keccakWord(f.mem.buf, off, size);
  return S_RUNNING;
}

/** BALANCE. */
export function balance(ev: Evm, f: Frame): number {
  const st = f.stack;
  const a = ev.world.account(st[f.sp - 1]! & MASK160);
  if (!charge(f, accessCost(ev, a))) return S_OOG;
  st[f.sp - 1] = a.balance;
  return S_RUNNING;
}

/** EXTCODESIZE (a 7702 delegation designator counts as its 23 bytes). */
export function extcodesize(ev: Evm, f: Frame): number {
  const st = f.stack;
  const a = ev.world.account(st[f.sp - 1]! & MASK160);
  if (!charge(f, accessCost(ev, a))) return S_OOG;
  st[f.sp - 1] = a.codeEmpty ? 0n : BigInt(ev.world.code(a).length);
  return S_RUNNING;
}

/** EXTCODEHASH: 0 for a dead account. */
export function extcodehash(ev: Evm, f: Frame): number {
  const st = f.stack;
  const a = ev.world.account(st[f.sp - 1]! & MASK160);
  if (!charge(f, accessCost(ev, a))) return S_OOG;
  st[f.sp - 1] = a.isDead() ? 0n : bytesToBigint(a.codeHash);
  return S_RUNNING;
}

/** EXTCODECOPY. */
export function extcodecopy(ev: Evm, f: Frame): number {
  const st = f.stack;
  const sp = f.sp;
  const a = ev.world.account(st[sp - 1]! & MASK160);
  const sizeB = st[sp - 4]!;
  if (!charge(f, accessCost(ev, a))) return S_OOG;
  const dest = chargeMemory(f, st[sp - 2]!, sizeB);
  if (dest < 0) return S_OOG;
  const size = Number(sizeB);
  if (!charge(f, COPY_WORD * words(size))) return S_OOG;
  if (size > 0) copyPadded(f, dest, ev.world.code(a), st[sp - 3]!, size);
  f.sp -= 4;
  return S_RUNNING;
}

function copyOp(f: Frame, src: Uint8Array): number {
  const st = f.stack;
  const sp = f.sp;
  const sizeB = st[sp - 3]!;
  const dest = chargeMemory(f, st[sp - 1]!, sizeB);
  if (dest < 0) return S_OOG;
  const size = Number(sizeB);
  if (!charge(f, COPY_WORD * words(size))) return S_OOG;
  if (size > 0) copyPadded(f, dest, src, st[sp - 2]!, size);
  f.sp -= 3;
  return S_RUNNING;
}

/** CALLDATACOPY. */
export function calldatacopy(_ev: Evm, f: Frame): number {
  return copyOp(f, f.input);
}

/** CODECOPY. */
export function codecopy(_ev: Evm, f: Frame): number {
  return copyOp(f, f.code);
}

/** RETURNDATACOPY: reading past the return data is an exceptional halt (EIP-211). */
export function returndatacopy(_ev: Evm, f: Frame): number {
  const st = f.stack;
  const sp = f.sp;
  const srcB = st[sp - 2]!;
  const sizeB = st[sp - 3]!;
  const dest = chargeMemory(f, st[sp - 1]!, sizeB);
  if (dest < 0) return S_OOG;
  const size = Number(sizeB);
  if (!charge(f, COPY_WORD * words(size))) return S_OOG;
  const rd = f.returnData;
  if (srcB + sizeB > BigInt(rd.length)) return S_RETURNDATA_OOB;
  if (size > 0) {
    const src = Number(srcB);
    f.mem.buf.set(rd.subarray(src, src + size), dest);
  }
  f.sp -= 3;
  return S_RUNNING;
}

/** MCOPY (EIP-5656). */
export function mcopy(_ev: Evm, f: Frame): number {
  const st = f.stack;
  const sp = f.sp;
  const destB = st[sp - 1]!;
  const srcB = st[sp - 2]!;
  const sizeB = st[sp - 3]!;
  if (sizeB !== 0n) {
    const hi = destB > srcB ? destB : srcB;
    if (chargeMemory(f, hi, sizeB) < 0) return S_OOG;
    const size = Number(sizeB);
    if (!charge(f, COPY_WORD * words(size))) return S_OOG;
    const src = Number(srcB);
    f.mem.buf.copyWithin(Number(destB), src, src + size);
  }
  f.sp -= 3;
  return S_RUNNING;
}

/** BLOCKHASH answers for this many blocks before the current one. */
const BLOCKHASH_WINDOW = 256n;

/** BLOCKHASH: the BLOCKHASH_WINDOW blocks before the current one, 0 otherwise. */
export function blockhash(ev: Evm, f: Frame): number {
  const st = f.stack;
  const n = st[f.sp - 1]!;
  const cur = ev.block.number;
  st[f.sp - 1] = n < cur && n + BLOCKHASH_WINDOW >= cur ? bytesToBigint(ev.world.reader.blockHash(n)) : 0n;
  return S_RUNNING;
}

/** BLOBHASH (EIP-4844). */
export function blobhash(ev: Evm, f: Frame): number {
  const st = f.stack;
  const i = st[f.sp - 1]!;
  const hs = ev.blobHashes;
  st[f.sp - 1] = i < BigInt(hs.length) ? bytesToBigint(hs[Number(i)]!) : 0n;
  return S_RUNNING;
}

/** LOG0..LOG4. */
export function log(ev: Evm, f: Frame, n: number): number {
  if (f.isStatic) return S_STATIC;
  const st = f.stack;
  const sp = f.sp;
  const sizeB = st[sp - 2]!;
  const off = chargeMemory(f, st[sp - 1]!, sizeB);
  if (off < 0) return S_OOG;
  const size = Number(sizeB);
  if (!charge(f, LOG_DATA_BYTE * size)) return S_OOG;
  const topics: bigint[] = [];
  for (let i = 0; i < n; i++) topics.push(st[sp - 3 - i]!);
  ev.logs.push({ address: f.address, topics, data: f.mem.slice(off, size) });
  f.sp -= 2 + n;
  return S_RUNNING;
}

/** A word as bytes (for precompile inputs and the like). */
export const word = wordToBytes;
