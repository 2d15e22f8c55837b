// The opcodes by name, and per opcode its static data: the gas charged before it runs, the stack items it needs and
// how much it grows the stack. One gas table per fork, built from the rows below and each fork's changes (data, not
// branches); an opcode a fork does not have is UNDEFINED in its table, which is what makes it invalid there. Dynamic
// costs (memory, access lists, copies) are in gas.ts and charged by the opcode itself.
//
// Op is a `const enum`. Both the build (scripts/build.mjs) and tsx compile one file at a time, so esbuild writes
// the literal only inside this file; an importer's `case Op.SLOAD:` would read a property of the enum's object, and
// V8 compiles a switch whose labels are not literals into a chain of compares instead of a jump table (the
// interpreter's dispatch ran 1.5-2x slower that way). So a dispatching switch writes `case 0x54 satisfies Op.SLOAD:`:
// the literal for V8, the name for the reader, and the type checker rejects a number that is not that opcode's.
import { FORKS } from '../forks.ts';
import type { Fork } from '../types.ts';

/** Every opcode the engine knows, by its mnemonic. */
export const enum Op {
  STOP = 0x00,
  ADD = 0x01,
  MUL = 0x02,
  SUB = 0x03,
  DIV = 0x04,
  SDIV = 0x05,
  MOD = 0x06,
  SMOD = 0x07,
  ADDMOD = 0x08,
  MULMOD = 0x09,
  EXP = 0x0a,
  SIGNEXTEND = 0x0b,
  LT = 0x10,
  GT = 0x11,
  SLT = 0x12,
  SGT = 0x13,
  EQ = 0x14,
  ISZERO = 0x15,
  AND = 0x16,
  OR = 0x17,
  XOR = 0x18,
  NOT = 0x19,
  BYTE = 0x1a,
  SHL = 0x1b,
  SHR = 0x1c,
  SAR = 0x1d,
  CLZ = 0x1e,
  KECCAK256 = 0x20,
  ADDRESS = 0x30,
  BALANCE = 0x31,
  ORIGIN = 0x32,
  CALLER = 0x33,
  CALLVALUE = 0x34,
  CALLDATALOAD = 0x35,
  CALLDATASIZE = 0x36,
  CALLDATACOPY = 0x37,
  CODESIZE = 0x38,
  CODECOPY = 0x39,
  GASPRICE = 0x3a,
  EXTCODESIZE = 0x3b,
  EXTCODECOPY = 0x3c,
  RETURNDATASIZE = 0x3d,
  RETURNDATACOPY = 0x3e,
  EXTCODEHASH = 0x3f,
  BLOCKHASH = 0x40,
  COINBASE = 0x41,
  TIMESTAMP = 0x42,
  NUMBER = 0x43,
  PREVRANDAO = 0x44,
  GASLIMIT = 0x45,
  CHAINID = 0x46,
  SELFBALANCE = 0x47,
  BASEFEE = 0x48,
  BLOBHASH = 0x49,
  BLOBBASEFEE = 0x4a,
  POP = 0x50,
  MLOAD = 0x51,
  MSTORE = 0x52,
  MSTORE8 = 0x53,
  SLOAD = 0x54,
  SSTORE = 0x55,
  JUMP = 0x56,
  JUMPI = 0x57,
  PC = 0x58,
  MSIZE = 0x59,
  GAS = 0x5a,
  JUMPDEST = 0x5b,
  TLOAD = 0x5c,
  TSTORE = 0x5d,
  MCOPY = 0x5e,
  PUSH0 = 0x5f,
  PUSH1 = 0x60,
  PUSH2 = 0x61,
  PUSH3 = 0x62,
  PUSH4 = 0x63,
  PUSH5 = 0x64,
  PUSH6 = 0x65,
  PUSH7 = 0x66,
  PUSH8 = 0x67,
  PUSH9 = 0x68,
  PUSH10 = 0x69,
  PUSH11 = 0x6a,
  PUSH12 = 0x6b,
  PUSH13 = 0x6c,
  PUSH14 = 0x6d,
  PUSH15 = 0x6e,
  PUSH16 = 0x6f,
  PUSH17 = 0x70,
  PUSH18 = 0x71,
  PUSH19 = 0x72,
  PUSH20 = 0x73,
  PUSH21 = 0x74,
  PUSH22 = 0x75,
  PUSH23 = 0x76,
  PUSH24 = 0x77,
  PUSH25 = 0x78,
  PUSH26 = 0x79,
  PUSH27 = 0x7a,
  PUSH28 = 0x7b,
  PUSH29 = 0x7c,
  PUSH30 = 0x7d,
  PUSH31 = 0x7e,
  PUSH32 = 0x7f,
  DUP1 = 0x80,
  DUP2 = 0x81,
  DUP3 = 0x82,
  DUP4 = 0x83,
  DUP5 = 0x84,
  DUP6 = 0x85,
  DUP7 = 0x86,
  DUP8 = 0x87,
  DUP9 = 0x88,
  DUP10 = 0x89,
  DUP11 = 0x8a,
  DUP12 = 0x8b,
  DUP13 = 0x8c,
  DUP14 = 0x8d,
  DUP15 = 0x8e,
  DUP16 = 0x8f,
  SWAP1 = 0x90,
  SWAP2 = 0x91,
  SWAP3 = 0x92,
  SWAP4 = 0x93,
  SWAP5 = 0x94,
  SWAP6 = 0x95,
  SWAP7 = 0x96,
  SWAP8 = 0x97,
  SWAP9 = 0x98,
  SWAP10 = 0x99,
  SWAP11 = 0x9a,
  SWAP12 = 0x9b,
  SWAP13 = 0x9c,
  SWAP14 = 0x9d,
  SWAP15 = 0x9e,
  SWAP16 = 0x9f,
  LOG0 = 0xa0,
  LOG1 = 0xa1,
  LOG2 = 0xa2,
  LOG3 = 0xa3,
  LOG4 = 0xa4,
  CREATE = 0xf0,
  CALL = 0xf1,
  CALLCODE = 0xf2,
  RETURN = 0xf3,
  DELEGATECALL = 0xf4,
  CREATE2 = 0xf5,
  STATICCALL = 0xfa,
  REVERT = 0xfd,
  INVALID = 0xfe,
  SELFDESTRUCT = 0xff,
}

/** The most items the stack holds. */
export const STACK_LIMIT = 1024;

/** Marks an undefined opcode in a gas table. */
export const UNDEFINED = -1;

/** Gas charged up front per opcode, every opcode any fork has (a fork's own table leaves out the later ones). */
const STATIC_GAS_ALL = new Int32Array(256).fill(UNDEFINED);
/** Minimum stack height per opcode. */
export const STACK_IN = new Uint8Array(256);
/** Stack items each opcode leaves on top (its outputs: OpenEthereum's `ret`, revm's `outputs`). */
export const STACK_OUT = new Uint8Array(256);
/** Largest stack height (before the opcode) that does not overflow STACK_LIMIT after it. */
export const STACK_MAX = new Int16Array(256);
const NAMES = new Array<string>(256).fill('INVALID');
/** Opcode mnemonics as geth's tracers print them (CLZ on every fork); a byte without an opcode, and 0xfe, is INVALID. */
export const OPCODE_NAMES: readonly string[] = NAMES;

function def(op: number, name: string, gas: number, pops: number, pushes: number): void {
  STATIC_GAS_ALL[op] = gas;
  STACK_IN[op] = pops;
  STACK_OUT[op] = pushes;
  STACK_MAX[op] = STACK_LIMIT - Math.max(0, pushes - pops);
  NAMES[op] = name;
}

def(Op.STOP, 'STOP', 0, 0, 0);
def(Op.ADD, 'ADD', 3, 2, 1);
def(Op.MUL, 'MUL', 5, 2, 1);
def(Op.SUB, 'SUB', 3, 2, 1);
def(Op.DIV, 'DIV', 5, 2, 1);
def(Op.SDIV, 'SDIV', 5, 2, 1);
def(Op.MOD, 'MOD', 5, 2, 1);
def(Op.SMOD, 'SMOD', 5, 2, 1);
def(Op.ADDMOD, 'ADDMOD', 8, 3, 1);
def(Op.MULMOD, 'MULMOD', 8, 3, 1);
def(Op.EXP, 'EXP', 10, 2, 1);
def(Op.SIGNEXTEND, 'SIGNEXTEND', 5, 2, 1);
def(Op.LT, 'LT', 3, 2, 1);
def(Op.GT, 'GT', 3, 2, 1);
def(Op.SLT, 'SLT', 3, 2, 1);
def(Op.SGT, 'SGT', 3, 2, 1);
def(Op.EQ, 'EQ', 3, 2, 1);
def(Op.ISZERO, 'ISZERO', 3, 1, 1);
def(Op.AND, 'AND', 3, 2, 1);
def(Op.OR, 'OR', 3, 2, 1);
def(Op.XOR, 'XOR', 3, 2, 1);
def(Op.NOT, 'NOT', 3, 1, 1);
def(Op.BYTE, 'BYTE', 3, 2, 1);
def(Op.SHL, 'SHL', 3, 2, 1);
def(Op.SHR, 'SHR', 3, 2, 1);
def(Op.SAR, 'SAR', 3, 2, 1);
def(Op.CLZ, 'CLZ', 5, 1, 1); // EIP-7939, priced as MUL
def(Op.KECCAK256, 'KECCAK256', 30, 2, 1);
def(Op.ADDRESS, 'ADDRESS', 2, 0, 1);
def(Op.BALANCE, 'BALANCE', 0, 1, 1);
def(Op.ORIGIN, 'ORIGIN', 2, 0, 1);
def(Op.CALLER, 'CALLER', 2, 0, 1);
def(Op.CALLVALUE, 'CALLVALUE', 2, 0, 1);
def(Op.CALLDATALOAD, 'CALLDATALOAD', 3, 1, 1);
def(Op.CALLDATASIZE, 'CALLDATASIZE', 2, 0, 1);
def(Op.CALLDATACOPY, 'CALLDATACOPY', 3, 3, 0);
def(Op.CODESIZE, 'CODESIZE', 2, 0, 1);
def(Op.CODECOPY, 'CODECOPY', 3, 3, 0);
def(Op.GASPRICE, 'GASPRICE', 2, 0, 1);
def(Op.EXTCODESIZE, 'EXTCODESIZE', 0, 1, 1);
def(Op.EXTCODECOPY, 'EXTCODECOPY', 0, 4, 0);
def(Op.RETURNDATASIZE, 'RETURNDATASIZE', 2, 0, 1);
def(Op.RETURNDATACOPY, 'RETURNDATACOPY', 3, 3, 0);
def(Op.EXTCODEHASH, 'EXTCODEHASH', 0, 1, 1);
def(Op.BLOCKHASH, 'BLOCKHASH', 20, 1, 1);
def(Op.COINBASE, 'COINBASE', 2, 0, 1);
def(Op.TIMESTAMP, 'TIMESTAMP', 2, 0, 1);
def(Op.NUMBER, 'NUMBER', 2, 0, 1);
def(Op.PREVRANDAO, 'PREVRANDAO', 2, 0, 1);
def(Op.GASLIMIT, 'GASLIMIT', 2, 0, 1);
def(Op.CHAINID, 'CHAINID', 2, 0, 1);
def(Op.SELFBALANCE, 'SELFBALANCE', 5, 0, 1);
def(Op.BASEFEE, 'BASEFEE', 2, 0, 1);
def(Op.BLOBHASH, 'BLOBHASH', 3, 1, 1);
def(Op.BLOBBASEFEE, 'BLOBBASEFEE', 2, 0, 1);
def(Op.POP, 'POP', 2, 1, 0);
def(Op.MLOAD, 'MLOAD', 3, 1, 1);
def(Op.MSTORE, 'MSTORE', 3, 2, 0);
def(Op.MSTORE8, 'MSTORE8', 3, 2, 0);
def(Op.SLOAD, 'SLOAD', 0, 1, 1);
def(Op.SSTORE, 'SSTORE', 0, 2, 0);
def(Op.JUMP, 'JUMP', 8, 1, 0);
def(Op.JUMPI, 'JUMPI', 10, 2, 0);
def(Op.PC, 'PC', 2, 0, 1);
def(Op.MSIZE, 'MSIZE', 2, 0, 1);
def(Op.GAS, 'GAS', 2, 0, 1);
def(Op.JUMPDEST, 'JUMPDEST', 1, 0, 0);
def(Op.TLOAD, 'TLOAD', 100, 1, 1);
def(Op.TSTORE, 'TSTORE', 100, 2, 0);
def(Op.MCOPY, 'MCOPY', 3, 3, 0);
def(Op.PUSH0, 'PUSH0', 2, 0, 1);
for (let n = 1; n <= 32; n++) def(Op.PUSH0 + n, `PUSH${n}`, 3, 0, 1);
for (let n = 1; n <= 16; n++) def(Op.DUP1 - 1 + n, `DUP${n}`, 3, n, n + 1);
for (let n = 1; n <= 16; n++) def(Op.SWAP1 - 1 + n, `SWAP${n}`, 3, n + 1, n + 1);
for (let n = 0; n <= 4; n++) def(Op.LOG0 + n, `LOG${n}`, 375 + 375 * n, n + 2, 0);
def(Op.CREATE, 'CREATE', 32000, 3, 1);
def(Op.CALL, 'CALL', 0, 7, 1);
def(Op.CALLCODE, 'CALLCODE', 0, 7, 1);
def(Op.RETURN, 'RETURN', 0, 2, 0);
def(Op.DELEGATECALL, 'DELEGATECALL', 0, 6, 1);
def(Op.CREATE2, 'CREATE2', 32000, 4, 1);
def(Op.STATICCALL, 'STATICCALL', 0, 6, 1);
def(Op.REVERT, 'REVERT', 0, 2, 0);
def(Op.SELFDESTRUCT, 'SELFDESTRUCT', 5000, 1, 0);

/** What a fork changes in the opcode set: the opcodes it adds, and static gas it reprices ([opcode, gas]). */
interface OpcodeChanges {
  readonly added: readonly Op[];
  readonly repriced: ReadonlyArray<readonly [Op, number]>;
}

// Cancun is the engine's first fork: it has every opcode above that no later fork adds. Prague adds no opcode.
const FORK_CHANGES: Readonly<Record<Fork, OpcodeChanges>> = {
  Cancun: { added: [], repriced: [] },
  Prague: { added: [], repriced: [] },
  Osaka: { added: [Op.CLZ], repriced: [] },
};

function buildGasTables(): Readonly<Record<Fork, Int32Array>> {
  const tables = {} as Record<Fork, Int32Array>;
  let table = STATIC_GAS_ALL.slice();
  for (const fork of FORKS) for (const op of FORK_CHANGES[fork].added) table[op] = UNDEFINED;
  for (const fork of FORKS) {
    table = table.slice();
    for (const op of FORK_CHANGES[fork].added) table[op] = STATIC_GAS_ALL[op]!;
    for (const [op, gas] of FORK_CHANGES[fork].repriced) table[op] = gas;
    tables[fork] = table;
  }
  return tables;
}

/** Each fork's static gas table (UNDEFINED: the opcode is invalid in that fork). */
export const GAS_TABLES = buildGasTables();

/** The gas table of a fork. */
export function staticGasOf(fork: Fork): Int32Array {
  return GAS_TABLES[fork];
}
