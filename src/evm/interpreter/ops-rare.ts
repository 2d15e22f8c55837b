// The opcodes the interpreter loop does not run inline (hashing, the environment's accounts and copies, logs,
// calls, creates, returns, SELFDESTRUCT): each works on the frame's fields, synced by the loop around the call.
import { Evm, Frame, S_INVALID } from './context.ts';
import type { Op } from './opcodes.ts';
import * as env from './ops-env.ts';
import * as sys from './ops-system.ts';

/** Runs an opcode the loop leaves out of line (on the frame's synced fields); returns its S_* code. */
export function outOfLine(ev: Evm, f: Frame, op: number): number {
  switch (op) {
    case 0x20 satisfies Op.KECCAK256:
      return env.keccak(ev, f);
    case 0x31 satisfies Op.BALANCE:
      return env.balance(ev, f);
    case 0x37 satisfies Op.CALLDATACOPY:
      return env.calldatacopy(ev, f);
    case 0x39 satisfies Op.CODECOPY:
      return env.codecopy(ev, f);
    case 0x3b satisfies Op.EXTCODESIZE:
      return env.extcodesize(ev, f);
    case 0x3c satisfies Op.EXTCODECOPY:
      return env.extcodecopy(ev, f);
    case 0x3e satisfies Op.RETURNDATACOPY:
      return env.returndatacopy(ev, f);
    case 0x3f satisfies Op.EXTCODEHASH:
      return env.extcodehash(ev, f);
    case 0x40 satisfies Op.BLOCKHASH:
      return env.blockhash(ev, f);
    case 0x49 satisfies Op.BLOBHASH:
      return env.blobhash(ev, f);
    case 0x5e satisfies Op.MCOPY:
      return env.mcopy(ev, f);
    case 0xa0 satisfies Op.LOG0:
    case 0xa1 satisfies Op.LOG1:
    case 0xa2 satisfies Op.LOG2:
    case 0xa3 satisfies Op.LOG3:
    case 0xa4 satisfies Op.LOG4:
      return env.log(ev, f, op - (0xa0 satisfies Op.LOG0));
    case 0xf0 satisfies Op.CREATE:
    case 0xf5 satisfies Op.CREATE2:
      return sys.create(ev, f, op === (0xf5 satisfies Op.CREATE2));
    case 0xf1 satisfies Op.CALL:
    case 0xf2 satisfies Op.CALLCODE:
    case 0xf4 satisfies Op.DELEGATECALL:
    case 0xfa satisfies Op.STATICCALL:
      return sys.call(ev, f, op);
    case 0xf3 satisfies Op.RETURN:
    case 0xfd satisfies Op.REVERT:
      return sys.ret(ev, f, op === (0xfd satisfies Op.REVERT));
    case 0xff satisfies Op.SELFDESTRUCT:
      return sys.selfdestruct(ev, f);
  }
  return S_INVALID;
}
