// The opcodes the interpreter loop does not run inline (hashing, the environment's accounts and copies, logs,
// calls, creates, returns, SELFDESTRUCT): each works on the frame's fields, synced by the loop around the call.
import { Evm, Frame, S_INVALID } from './context.ts';
import { Op } from './opcodes.ts';
import * as env from './ops-env.ts';
import * as sys from './ops-system.ts';

/** Runs an opcode the loop leaves out of line (on the frame's synced fields); returns its S_* code. */
export function outOfLine(ev: Evm, f: Frame, op: number): number {
  switch (op) {
    case Op.KECCAK256:
      return env.keccak(ev, f);
    case Op.BALANCE:
      return env.balance(ev, f);
    case Op.CALLDATACOPY:
      return env.calldatacopy(ev, f);
    case Op.CODECOPY:
      return env.codecopy(ev, f);
    case Op.EXTCODESIZE:
      return env.extcodesize(ev, f);
    case Op.EXTCODECOPY:
      return env.extcodecopy(ev, f);
    case Op.RETURNDATACOPY:
      return env.returndatacopy(ev, f);
    case Op.EXTCODEHASH:
      return env.extcodehash(ev, f);
    case Op.BLOCKHASH:
      return env.blockhash(ev, f);
    case Op.BLOBHASH:
      return env.blobhash(ev, f);
    case Op.MCOPY:
      return env.mcopy(ev, f);
    case Op.LOG0:
    case Op.LOG1:
    case Op.LOG2:
    case Op.LOG3:
    case Op.LOG4:
      return env.log(ev, f, op - Op.LOG0);
    case Op.CREATE:
    case Op.CREATE2:
      return sys.create(ev, f, op === Op.CREATE2);
    case Op.CALL:
    case Op.CALLCODE:
    case Op.DELEGATECALL:
    case Op.STATICCALL:
      return sys.call(ev, f, op);
    case Op.RETURN:
    case Op.REVERT:
      return sys.ret(ev, f, op === Op.REVERT);
    case Op.SELFDESTRUCT:
      return sys.selfdestruct(ev, f);
  }
  return S_INVALID;
}
