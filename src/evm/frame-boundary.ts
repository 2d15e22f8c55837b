// The edges of one message frame: beginning a call (value transfer, precompiles, EIP-7702 delegation already
// resolved by the caller) or a create, and finishing either (the EIP-170/3541 deposit rules; a failed frame reverts
// the state journal, the logs and the refund counter). It does not run the interpreter, so the CALL and CREATE
// opcodes can begin their child frames here without importing the loop that imports them.
import type { Precompile, StatefulPrecompile } from './types.ts';
import { worldHost } from './host.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { EMPTY_BYTES } from '../primitives/bytes.ts';
import {
  CALL_KINDS,
  Evm,
  Frame,
  isSuccess,
  K_CREATE,
  S_CODE_PREFIX,
  S_CODE_SIZE,
  S_OOG,
  S_PRECOMPILE,
  S_RETURN,
  S_REVERT,
  S_STOP,
  STATUS_NAMES,
  setGas,
} from './interpreter/context.ts';
import { CODE_DEPOSIT_BYTE } from './interpreter/gas.ts';

/** EIP-170: the largest deployed code. */
export const MAX_CODE_SIZE = 24576;
/** EIP-3860: the largest initcode. */
export const MAX_INITCODE_SIZE = 2 * MAX_CODE_SIZE;
/** EIP-3541: deployed code may not begin with this byte (reserved for EOF). */
const EOF_MAGIC = 0xef;

function enter(ev: Evm, c: Frame): void {
  ev.tracer!.enter?.({
    kind: CALL_KINDS[c.kind]!,
    depth: c.depth,
    from: c.caller,
    to: c.address,
    codeAddress: c.codeAddress,
    input: c.kind >= K_CREATE ? c.code : c.input,
    gas: c.gas,
    value: c.value,
  });
}

function exit(ev: Evm, c: Frame, gasStart: number): void {
  ev.tracer!.exit?.({
    depth: c.depth,
    status: STATUS_NAMES[c.status]!,
    gasUsed: gasStart - c.gas,
    output: c.output,
  });
}

function runPrecompile(ev: Evm, c: Frame, p: Precompile): void {
  if (p.stateful === true) {
    runStateful(ev, c, p);
    return;
  }
  const cost = p.gas(c.input, ev.fork);
  if (cost > BigInt(c.gas) + c.gasExtra) {
    c.status = S_OOG;
    c.gas = 0;
    return;
  }
  const out = p.run(c.input, ev.fork);
  if (out === undefined) {
    c.status = S_PRECOMPILE;
    c.gas = 0;
    return;
  }
  c.gas -= Number(cost);
  c.output = out;
  c.status = S_RETURN;
}

function runStateful(ev: Evm, c: Frame, p: StatefulPrecompile): void {
  const available = BigInt(c.gas) + c.gasExtra;
  const out = p.call({
    input: c.input,
    caller: c.caller,
    address: c.address,
    codeAddress: c.codeAddress,
    value: c.value,
    kind: CALL_KINDS[c.kind]!,
    isStatic: c.isStatic,
    origin: ev.origin,
    block: ev.block,
    fork: ev.fork,
    gas: available,
    host: worldHost(ev.world, ev.logs, ev.tracer),
  });
  if (out.status === 'failure' || out.gasUsed > available) {
    c.status = out.status === 'failure' ? S_PRECOMPILE : S_OOG;
    c.gas = 0;
    c.gasExtra = 0n;
    return;
  }
  setGas(c, available - out.gasUsed);
  c.output = out.output;
  c.status = out.status === 'success' ? S_RETURN : S_REVERT;
}

function saveSnapshot(ev: Evm, c: Frame): void {
  c.snap = ev.world.snapshot();
  c.logsLen = ev.logs.length;
  c.refundSnap = ev.refund;
  c.gasStart = c.gas;
}

/**
 * Begins a prepared call frame (kind/caller/address/codeAddress/value/input/code/analysis/isStatic/gas set):
 * snapshot, value transfer (`transfer`: CALL and the top-level tx), EIP-161 touch. A precompile or empty code
 * finishes at once (returns false); otherwise the frame needs the interpreter (returns true).
 */
export function beginCall(ev: Evm, c: Frame, transfer: boolean, precompile: Precompile | undefined): boolean {
  const world = ev.world;
  saveSnapshot(ev, c);
  const acc = world.account(c.address);
  c.acc = acc;
  if (transfer && c.value !== 0n) {
    const from = world.account(c.caller);
    world.setBalance(from, from.balance - c.value);
    world.setBalance(acc, acc.balance + c.value);
  }
  world.touch(acc);
  if (ev.tracer !== undefined) enter(ev, c);
  if (precompile !== undefined) runPrecompile(ev, c, precompile);
  else if (c.code.length === 0) c.status = S_STOP;
  else return true;
  finishFrame(ev, c);
  return false;
}

/**
 * Begins a prepared create frame (c.address is the new account, c.code the initcode; the caller has checked
 * collision, depth and balance, and incremented the creator's nonce). Returns false when it finished at once.
 */
export function beginCreate(ev: Evm, c: Frame): boolean {
  const world = ev.world;
  saveSnapshot(ev, c);
  const acc = world.account(c.address);
  c.acc = acc;
  world.resetForCreate(acc);
  world.setNonce(acc, 1n);
  if (c.value !== 0n) {
    const from = world.account(c.caller);
    world.setBalance(from, from.balance - c.value);
    world.setBalance(acc, acc.balance + c.value);
  }
  if (ev.tracer !== undefined) enter(ev, c);
  if (c.code.length !== 0) return true;
  c.status = S_STOP;
  finishFrame(ev, c);
  return false;
}

/** Ends a frame: code deposit for a create (EIP-170/3541), revert of everything on failure, tracer exit. */
export function finishFrame(ev: Evm, c: Frame): void {
  const world = ev.world;
  if (c.kind >= K_CREATE && isSuccess(c.status)) {
    const code = c.output;
    const cost = code.length * CODE_DEPOSIT_BYTE;
    if (code.length > 0 && code[0] === EOF_MAGIC) c.status = S_CODE_PREFIX;
    else if (code.length > MAX_CODE_SIZE) c.status = S_CODE_SIZE;
    else if (c.gas < cost) c.status = S_OOG;
    else {
      c.gas -= cost;
      world.setCode(c.acc, code, code.length === 0 ? EMPTY_BYTES : keccak256(code));
      c.status = S_RETURN;
    }
    if (!isSuccess(c.status)) {
      c.gas = 0;
      c.output = EMPTY_BYTES;
    }
  }
  if (!isSuccess(c.status)) {
    if (c.status !== S_REVERT) c.gasExtra = 0n;
    world.revertTo(c.snap);
    ev.logs.length = c.logsLen;
    ev.refund = c.refundSnap;
  }
  if (ev.tracer !== undefined) exit(ev, c, c.gasStart);
}
