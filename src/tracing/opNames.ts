// Opcode names as the tracers print them (geth's table: PUSH1 not PUSH, KECCAK256, PREVRANDAO, and Osaka's CLZ,
// which geth names on every fork); every byte without an opcode, and 0xfe, reads INVALID.

/** Runs of consecutive opcodes: [first byte, names]. */
const RUNS: Array<[number, string]> = [
  [0x00, 'STOP ADD MUL SUB DIV SDIV MOD SMOD ADDMOD MULMOD EXP SIGNEXTEND'],
  [0x10, 'LT GT SLT SGT EQ ISZERO AND OR XOR NOT BYTE SHL SHR SAR CLZ'],
  [0x20, 'KECCAK256'],
  [
    0x30,
    'ADDRESS BALANCE ORIGIN CALLER CALLVALUE CALLDATALOAD CALLDATASIZE CALLDATACOPY CODESIZE CODECOPY GASPRICE ' +
      'EXTCODESIZE EXTCODECOPY RETURNDATASIZE RETURNDATACOPY EXTCODEHASH BLOCKHASH COINBASE TIMESTAMP NUMBER ' +
      'PREVRANDAO GASLIMIT CHAINID SELFBALANCE BASEFEE BLOBHASH BLOBBASEFEE',
  ],
  [0x50, 'POP MLOAD MSTORE MSTORE8 SLOAD SSTORE JUMP JUMPI PC MSIZE GAS JUMPDEST TLOAD TSTORE MCOPY PUSH0'],
  [0xf0, 'CREATE CALL CALLCODE RETURN DELEGATECALL CREATE2'],
  [0xfa, 'STATICCALL'],
  [0xfd, 'REVERT INVALID SELFDESTRUCT'],
];

/** The name of each opcode byte. */
export const OP_NAMES: readonly string[] = (() => {
  const names = new Array<string>(256).fill('INVALID');
  for (const [first, run] of RUNS) run.split(' ').forEach((n, i) => (names[first + i] = n));
  for (let i = 1; i <= 32; i++) names[0x5f + i] = `PUSH${i}`;
  for (let i = 1; i <= 16; i++) names[0x7f + i] = `DUP${i}`;
  for (let i = 1; i <= 16; i++) names[0x8f + i] = `SWAP${i}`;
  for (let i = 0; i <= 4; i++) names[0xa0 + i] = `LOG${i}`;
  return names;
})();
