// The dynamic gas schedule (Cancun through Osaka share it): the costs an opcode charges beyond its static gas in
// opcodes.ts. One place, so the interpreter, the out-of-line ops and the tracer's pre-execution estimate price an
// opcode from the same numbers.

/** EIP-2929: touching a warm account or slot. */
export const WARM_ACCESS = 100;
/** EIP-2929: first touch of an account in a transaction. */
export const COLD_ACCOUNT_ACCESS = 2600;
/** EIP-2929: first touch of a storage slot in a transaction. */
export const COLD_SLOAD = 2100;
/** EIP-2200: SSTORE turning a zero slot non-zero. */
export const SSTORE_SET = 20000;
/** EIP-2200/2929: SSTORE changing a non-zero slot (cold surcharge included). */
export const SSTORE_RESET = 5000;
/** EIP-3529: refund for clearing a slot. */
export const SSTORE_CLEARS_REFUND = 4800;
/** EIP-2200: SSTORE fails when no more than the stipend is left. */
export const CALL_STIPEND = 2300;
/** A call transferring value. */
export const CALL_VALUE = 9000;
/** A value transfer (CALL) or SELFDESTRUCT creating an account. */
export const NEW_ACCOUNT = 25000;
/** Per 32-byte word copied (CALLDATACOPY, CODECOPY, EXTCODECOPY, RETURNDATACOPY, MCOPY). */
export const COPY_WORD = 3;
/** Per 32-byte word hashed (KECCAK256, CREATE2's address). */
export const KECCAK_WORD = 6;
/** EIP-3860: per 32-byte word of initcode. */
export const INITCODE_WORD = 2;
/** Per byte of LOG data. */
export const LOG_DATA_BYTE = 8;
/** EIP-160: per byte of EXP's exponent. */
export const EXP_BYTE = 50;
/** Per byte of code a create deposits (charged when the frame ends). */
export const CODE_DEPOSIT_BYTE = 200;
/** EIP-2200: SSTORE fails when no more than this is left (the call stipend). */
export const SSTORE_SENTRY = CALL_STIPEND;

/** SSTORE's cost (EIP-2200/2929) on a warm slot; a cold one adds COLD_SLOAD. */
export function sstoreGas(original: bigint, current: bigint, value: bigint): number {
  if (current === value || original !== current) return WARM_ACCESS;
  return original === 0n ? SSTORE_SET : SSTORE_RESET - COLD_SLOAD;
}

/** The refund counter's change (EIP-3529) when SSTORE writes `value` over `current` (0 when they are equal). */
export function sstoreRefund(original: bigint, current: bigint, value: bigint): number {
  if (current === value) return 0;
  let r = 0;
  if (original !== 0n && current !== 0n && value === 0n) r += SSTORE_CLEARS_REFUND;
  if (original !== 0n && current === 0n) r -= SSTORE_CLEARS_REFUND;
  if (original === value) r += original === 0n ? SSTORE_SET - WARM_ACCESS : SSTORE_RESET - COLD_SLOAD - WARM_ACCESS;
  return r;
}
