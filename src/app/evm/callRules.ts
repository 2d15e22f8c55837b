// The rules a call meets before and after Kestrel's engine runs it, in the order and with the texts eth_call has
// always answered with (they were @ethereumjs/vm's runTx checks): intrinsic gas, the fee cap against the base
// fee, the sender's code (EIP-3607), the balance; an unpriced call's sender is credited what it lacks; EVM
// failures keep ethereumjs' error texts, which clients have matched on.
import { ExecutionError } from '../../errors/index.ts';
import type { CallRequest } from '../../primitives/callRequest.ts';
import type {
  AccountInfo,
  BlockEnv,
  ExecStatus,
  FrameStart,
  StateReader,
  StepView,
  Tracer,
  Tx,
  TxInvalidReason,
} from '../../evm/index.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';
import { bytesEqual, bytesToHex } from '../../primitives/hex.ts';
import { addressBytes } from './engineTx.ts';

/** EIP-3860's limit on init code (2 × the 24576-byte code limit). */
const MAX_INITCODE_SIZE = 49152;

/** geth's refusal of a creation whose init code exceeds EIP-3860's limit (checked before anything else). */
export function checkInitcode(req: CallRequest): void {
  const size = req.data?.length ?? 0;
  if (req.to === undefined && size > MAX_INITCODE_SIZE) {
    throw new ExecutionError(`max initcode size exceeded: code size ${size} limit ${MAX_INITCODE_SIZE}`);
  }
}

/** ethereumjs' text of each failed end state (a top-level failure; call_depth and balance fail only inner frames). */
const STATUS_TEXT: Partial<Record<ExecStatus, string>> = {
  revert: 'revert',
  out_of_gas: 'out of gas',
  invalid_opcode: 'invalid opcode',
  stack_underflow: 'stack underflow',
  stack_overflow: 'stack overflow',
  bad_jump: 'invalid JUMP',
  static_violation: 'static state change',
  // ethereumjs traps a RETURNDATACOPY past the return data as out of gas.
  return_data_out_of_bounds: 'out of gas',
  call_depth: 'call depth',
  insufficient_balance: 'insufficient balance',
  create_collision: 'create collision',
  code_too_large: 'code size to deposit exceeds maximum code size',
  invalid_code_prefix: 'invalid bytecode deployed',
  nonce_overflow: 'value overflow',
  precompile_failure: 'out of gas',
};

/** The error text of a run's end state, undefined for success. */
export function statusError(status: ExecStatus): string | undefined {
  return status === 'success' ? undefined : (STATUS_TEXT[status] ?? status);
}

/** Input lengths each BLS12-381 precompile accepts (EIP-2537): exact, or a multiple for the MSMs and pairing. */
const BLS_EXACT: Record<number, number> = { 0x0b: 256, 0x0d: 512, 0x10: 64, 0x11: 128 };
const BLS_MULTIPLE: Record<number, number> = { 0x0c: 160, 0x0e: 288, 0x0f: 384 };

/**
 * The input-shape fault of a message that failed inside precompile `n` (its address in the fork's table), in
 * ethereumjs' words; undefined when the input is well-formed, i.e. the failure was past those checks (it then
 * reads, and counts, as running out of gas).
 */
export function precompileInputFault(n: number, input: Uint8Array): string | undefined {
  const len = input.length;
  if (n === 0x08 && len % 192 !== 0) return 'invalid input length';
  if (n === 0x09 && (len !== 213 || input[212]! > 1)) return 'value out of range';
  if (n === 0x0a && len !== 192) return 'invalid input length';
  if (BLS_EXACT[n] !== undefined && len !== BLS_EXACT[n]) return 'invalid input length';
  const unit = BLS_MULTIPLE[n];
  if (unit !== undefined) {
    if (len === 0) return 'input is empty';
    if (len % unit !== 0) return 'invalid input length';
  }
  return undefined;
}

/** ethereumjs' text when a message fails inside precompile `n`: its input-shape fault, else "out of gas". */
export function precompileFailure(n: number, input: Uint8Array): string {
  return precompileInputFault(n, input) ?? STATUS_TEXT.out_of_gas!;
}

/** ethereumjs names a bad jump with where it is: keccak(code)/address:pc of the top frame. */
export function jumpLocation(code: Uint8Array, address: bigint, pc: number): string {
  return `${bytesToHex(keccak256(code))}/${bytesToHex(addressBytes(address))}:${pc}`;
}

/** Where the top frame of a run faulted on a bad jump. */
export interface TopFault {
  pc: number | undefined;
  top: FrameStart | undefined;
}

/** A tracer that records where the top frame faulted (for the bad-jump text; used only on a failed run's replay). */
export function topFault(): Tracer & TopFault {
  const t: Tracer & TopFault = {
    pc: undefined,
    top: undefined,
    enter(frame: FrameStart) {
      if (frame.depth === 0) t.top = frame;
    },
    fault(step: StepView, status: ExecStatus) {
      if (step.depth === 0 && status === 'bad_jump') t.pc = step.pc;
    },
  };
  return t;
}

function intrinsicTooLow(gas: bigint, min: bigint): ExecutionError {
  return new ExecutionError(
    `intrinsic gas too low: INTRINSIC_GAS_TOO_LOW: tx gas limit ${gas} is lower than the minimum gas limit of ${min}`,
  );
}

function tipAboveFeeCap(tx: Tx): ExecutionError {
  return new ExecutionError(
    'maxFeePerGas cannot be less than maxPriorityFeePerGas (The total must be the larger of the two) ' +
      `(tx type=2 hash=not available (unsigned) nonce=${tx.nonce} value=${tx.value} signed=false hf=prague ` +
      `maxFeePerGas=${tx.maxFeePerGas} maxPriorityFeePerGas=${tx.maxPriorityFeePerGas})`,
  );
}

/** The 7702 designator prefix: a delegated EOA may send. */
function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/**
 * The checks before execution, in runTx's order: intrinsic gas (with the EIP-7623 floor), a priced call's fee cap
 * against the base fee, a sender with code that is no 7702 delegation, a priced call's balance.
 */
export function senderCheck(
  tx: Tx,
  env: BlockEnv,
  minGas: bigint,
  sender: AccountInfo | undefined,
  reader: StateReader,
  priced: boolean,
): void {
  // ethereumjs refused to build such a 1559 message at all, before any other check (its text, with its summary).
  if (tx.type === 2 && tx.maxPriorityFeePerGas > tx.maxFeePerGas) throw tipAboveFeeCap(tx);
  if (tx.gasLimit < minGas) throw intrinsicTooLow(tx.gasLimit, minGas);
  const feeCap = tx.type === 2 ? tx.maxFeePerGas : tx.gasPrice;
  if (priced && feeCap < env.baseFee) {
    throw new ExecutionError(
      `max fee per gas less than block base fee: address ${bytesToHex(addressBytes(tx.from))}, maxFeePerGas: ${feeCap}, baseFee: ${env.baseFee}`,
    );
  }
  if (sender !== undefined && !bytesEqual(sender.codeHash, EMPTY_CODE_HASH)) {
    if (!isDelegation(reader.code(sender.codeHash))) {
      throw new ExecutionError('invalid sender address, address is not EOA (EIP-3607)');
    }
  }
  if (priced && (sender?.balance ?? 0n) < tx.value + tx.gasLimit * feeCap) {
    throw new ExecutionError('insufficient funds for gas * price + value');
  }
}

/**
 * An unpriced call's state: the sender holds at least value + gas × fee cap (geth's eth_call runs such a call
 * without funds for gas; the sender's balance is raised, never lowered, for the call's duration).
 */
export function toppedUp(reader: StateReader, tx: Tx): StateReader {
  const need = tx.value + tx.gasLimit * (tx.type === 2 ? tx.maxFeePerGas : tx.gasPrice);
  if (need === 0n) return reader;
  const acc = reader.account(tx.from);
  if (acc !== undefined && acc.balance >= need) return reader;
  const raised: AccountInfo = acc
    ? { ...acc, balance: need }
    : { nonce: 0n, balance: need, codeHash: EMPTY_CODE_HASH, storageEmpty: true };
  return {
    account: (a) => (a === tx.from ? raised : reader.account(a)),
    code: (h) => reader.code(h),
    storage: (a, k) => reader.storage(a, k),
    blockHash: (n) => reader.blockHash(n),
  };
}

/** The error of an engine refusal that the checks above did not catch first. */
export function refusalOf(reason: TxInvalidReason, message: string, tx: Tx, minGas: bigint): ExecutionError {
  switch (reason) {
    case 'INTRINSIC_GAS_TOO_LOW':
    case 'FLOOR_DATA_GAS_TOO_LOW':
      return intrinsicTooLow(tx.gasLimit, minGas);
    case 'INSUFFICIENT_FUNDS':
      return new ExecutionError('insufficient funds for gas * price + value');
    case 'TIP_ABOVE_FEE_CAP':
      return tipAboveFeeCap(tx);
    default:
      return new ExecutionError(message);
  }
}
