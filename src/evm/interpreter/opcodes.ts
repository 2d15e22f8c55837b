// Per-opcode static data: the gas charged before the opcode runs, the stack items it needs, and how much it
// grows the stack. Cancun and Prague have the same instruction set (Prague adds no opcode); Osaka adds CLZ, so it
// has a gas table of its own, which is what makes the opcode valid there. Dynamic costs (memory, access lists,
// copies) are charged by the opcode itself.
import { forkRules } from '../forks.ts';
import type { Fork } from '../types.ts';

/** Marks an undefined opcode in STATIC_GAS. */
export const UNDEFINED = -1;

/** Gas charged up front per opcode (UNDEFINED for invalid opcodes), Cancun and Prague. */
export const STATIC_GAS = new Int32Array(256).fill(UNDEFINED);
/** Minimum stack height per opcode. */
export const STACK_IN = new Uint8Array(256);
/** Largest stack height (before the opcode) that does not overflow 1024 after it. */
export const STACK_MAX = new Int16Array(256);
/** Opcode names (for tracers). */
export const OPCODE_NAMES: string[] = new Array<string>(256).fill('');

function def(op: number, name: string, gas: number, pops: number, pushes: number): void {
  STATIC_GAS[op] = gas;
  STACK_IN[op] = pops;
  STACK_MAX[op] = 1024 - Math.max(0, pushes - pops);
  OPCODE_NAMES[op] = name;
}

def(0x00, 'STOP', 0, 0, 0);
def(0x01, 'ADD', 3, 2, 1);
def(0x02, 'MUL', 5, 2, 1);
def(0x03, 'SUB', 3, 2, 1);
def(0x04, 'DIV', 5, 2, 1);
def(0x05, 'SDIV', 5, 2, 1);
def(0x06, 'MOD', 5, 2, 1);
def(0x07, 'SMOD', 5, 2, 1);
def(0x08, 'ADDMOD', 8, 3, 1);
def(0x09, 'MULMOD', 8, 3, 1);
def(0x0a, 'EXP', 10, 2, 1);
def(0x0b, 'SIGNEXTEND', 5, 2, 1);
def(0x10, 'LT', 3, 2, 1);
def(0x11, 'GT', 3, 2, 1);
def(0x12, 'SLT', 3, 2, 1);
def(0x13, 'SGT', 3, 2, 1);
def(0x14, 'EQ', 3, 2, 1);
def(0x15, 'ISZERO', 3, 1, 1);
def(0x16, 'AND', 3, 2, 1);
def(0x17, 'OR', 3, 2, 1);
def(0x18, 'XOR', 3, 2, 1);
def(0x19, 'NOT', 3, 1, 1);
def(0x1a, 'BYTE', 3, 2, 1);
def(0x1b, 'SHL', 3, 2, 1);
def(0x1c, 'SHR', 3, 2, 1);
def(0x1d, 'SAR', 3, 2, 1);
def(0x20, 'KECCAK256', 30, 2, 1);
def(0x30, 'ADDRESS', 2, 0, 1);
def(0x31, 'BALANCE', 0, 1, 1);
def(0x32, 'ORIGIN', 2, 0, 1);
def(0x33, 'CALLER', 2, 0, 1);
def(0x34, 'CALLVALUE', 2, 0, 1);
def(0x35, 'CALLDATALOAD', 3, 1, 1);
def(0x36, 'CALLDATASIZE', 2, 0, 1);
def(0x37, 'CALLDATACOPY', 3, 3, 0);
def(0x38, 'CODESIZE', 2, 0, 1);
def(0x39, 'CODECOPY', 3, 3, 0);
def(0x3a, 'GASPRICE', 2, 0, 1);
def(0x3b, 'EXTCODESIZE', 0, 1, 1);
def(0x3c, 'EXTCODECOPY', 0, 4, 0);
def(0x3d, 'RETURNDATASIZE', 2, 0, 1);
def(0x3e, 'RETURNDATACOPY', 3, 3, 0);
def(0x3f, 'EXTCODEHASH', 0, 1, 1);
def(0x40, 'BLOCKHASH', 20, 1, 1);
def(0x41, 'COINBASE', 2, 0, 1);
def(0x42, 'TIMESTAMP', 2, 0, 1);
def(0x43, 'NUMBER', 2, 0, 1);
def(0x44, 'PREVRANDAO', 2, 0, 1);
def(0x45, 'GASLIMIT', 2, 0, 1);
def(0x46, 'CHAINID', 2, 0, 1);
def(0x47, 'SELFBALANCE', 5, 0, 1);
def(0x48, 'BASEFEE', 2, 0, 1);
def(0x49, 'BLOBHASH', 3, 1, 1);
def(0x4a, 'BLOBBASEFEE', 2, 0, 1);
def(0x50, 'POP', 2, 1, 0);
def(0x51, 'MLOAD', 3, 1, 1);
def(0x52, 'MSTORE', 3, 2, 0);
def(0x53, 'MSTORE8', 3, 2, 0);
def(0x54, 'SLOAD', 0, 1, 1);
def(0x55, 'SSTORE', 0, 2, 0);
def(0x56, 'JUMP', 8, 1, 0);
def(0x57, 'JUMPI', 10, 2, 0);
def(0x58, 'PC', 2, 0, 1);
def(0x59, 'MSIZE', 2, 0, 1);
def(0x5a, 'GAS', 2, 0, 1);
def(0x5b, 'JUMPDEST', 1, 0, 0);
def(0x5c, 'TLOAD', 100, 1, 1);
def(0x5d, 'TSTORE', 100, 2, 0);
def(0x5e, 'MCOPY', 3, 3, 0);
def(0x5f, 'PUSH0', 2, 0, 1);
for (let n = 1; n <= 32; n++) def(0x5f + n, `PUSH${n}`, 3, 0, 1);
for (let n = 1; n <= 16; n++) def(0x7f + n, `DUP${n}`, 3, n, n + 1);
for (let n = 1; n <= 16; n++) def(0x8f + n, `SWAP${n}`, 3, n + 1, n + 1);
for (let n = 0; n <= 4; n++) def(0xa0 + n, `LOG${n}`, 375 + 375 * n, n + 2, 0);
def(0xf0, 'CREATE', 32000, 3, 1);
def(0xf1, 'CALL', 0, 7, 1);
def(0xf2, 'CALLCODE', 0, 7, 1);
def(0xf3, 'RETURN', 0, 2, 0);
def(0xf4, 'DELEGATECALL', 0, 6, 1);
def(0xf5, 'CREATE2', 32000, 4, 1);
def(0xfa, 'STATICCALL', 0, 6, 1);
def(0xfd, 'REVERT', 0, 2, 0);
def(0xff, 'SELFDESTRUCT', 5000, 1, 0);
OPCODE_NAMES[0xfe] = 'INVALID';

/** Osaka's gas table: Prague's and EIP-7939's CLZ (0x1e), priced as MUL. */
export const STATIC_GAS_OSAKA = STATIC_GAS.slice();
STATIC_GAS_OSAKA[0x1e] = 5;
STACK_IN[0x1e] = 1;
STACK_MAX[0x1e] = 1024;
OPCODE_NAMES[0x1e] = 'CLZ';

/** The gas table of a fork: an opcode it does not have is UNDEFINED there. */
export function staticGasOf(fork: Fork): Int32Array {
  return forkRules(fork).clz ? STATIC_GAS_OSAKA : STATIC_GAS;
}
