// Transaction validity: everything checked before any state changes. Order and rules follow the execution
// specification's validate_transaction / check_transaction (the first failing rule names the reason).
import type { BlockEnv, ExecOptions, Tx, TxInvalidReason } from '../types.ts';
import type { WorldState } from '../state/world.ts';
import { delegationTarget } from '../addresses.ts';
import { MAX_INITCODE_SIZE } from '../frame-boundary.ts';
import { forkRules } from '../forks.ts';
import { blobParams, GAS_PER_BLOB } from './fees.ts';
import { intrinsicGas } from './intrinsic.ts';

const NONCE_MAX = (1n << 64n) - 1n;

/** What validation establishes for execution. */
export interface ValidTx {
  ok: true;
  intrinsic: bigint;
  floor: bigint;
  effectiveGasPrice: bigint;
  blobGas: bigint;
}

/** A rejection. */
export interface InvalidTx {
  ok: false;
  reason: TxInvalidReason;
  message: string;
}

function bad(reason: TxInvalidReason, message: string): InvalidTx {
  return { ok: false, reason, message };
}

/** Checks `tx` against the block and the sender's account; touches no state. */
export function validateTx(world: WorldState, block: BlockEnv, tx: Tx, opts: ExecOptions): ValidTx | InvalidTx {
  const fork = opts.fork;
  const rules = forkRules(fork);
  const isCall = opts.isCall === true;
  if (tx.type === 4 && !rules.setCode) return bad('TYPE_NOT_SUPPORTED', 'transaction type not supported');
  const { gas: intrinsic, floor } = intrinsicGas(tx, fork);
  if (intrinsic > tx.gasLimit) return bad('INTRINSIC_GAS_TOO_LOW', 'intrinsic gas too low');
  if (floor > tx.gasLimit) return bad('FLOOR_DATA_GAS_TOO_LOW', 'insufficient gas for floor data gas cost');
  if (tx.nonce >= NONCE_MAX) return bad('NONCE_MAX', 'nonce has max value');
  if (tx.to === undefined && tx.data.length > MAX_INITCODE_SIZE) {
    return bad('INITCODE_TOO_LARGE', 'max initcode size exceeded');
  }
  // EIP-7825. A call is no transaction: geth's eth_call skips this check (SkipTransactionChecks) and so does this.
  const cap = rules.txGasLimitCap;
  if (cap !== 0n && tx.gasLimit > cap && !isCall) {
    return bad('GAS_LIMIT_EXCEEDS_MAXIMUM', `transaction gas limit too high (cap: ${cap}, tx: ${tx.gasLimit})`);
  }
  if (tx.gasLimit > block.gasLimit) return bad('GAS_LIMIT_EXCEEDS_BLOCK', 'gas limit reached');
  const blobGas = GAS_PER_BLOB * BigInt(tx.blobVersionedHashes.length);
  if (tx.type === 3 && blobGas > blobParams(fork).maxBlobGasPerBlock) {
    return bad('BLOB_COUNT', 'blob gas limit exceeded');
  }

  let effectiveGasPrice: bigint;
  let maxFee: bigint;
  if (tx.type >= 2) {
    if (tx.maxFeePerGas < tx.maxPriorityFeePerGas) {
      return bad('TIP_ABOVE_FEE_CAP', 'max priority fee per gas higher than max fee per gas');
    }
    if (tx.maxFeePerGas < block.baseFee && !(isCall && tx.maxFeePerGas === 0n)) {
      return bad('FEE_CAP_BELOW_BASE_FEE', 'max fee per gas less than block base fee');
    }
    const tip = tx.maxFeePerGas - block.baseFee;
    effectiveGasPrice =
      tip < 0n ? tx.maxFeePerGas : block.baseFee + (tx.maxPriorityFeePerGas < tip ? tx.maxPriorityFeePerGas : tip);
    maxFee = tx.gasLimit * tx.maxFeePerGas;
  } else {
    if (tx.gasPrice < block.baseFee && !(isCall && tx.gasPrice === 0n)) {
      return bad('FEE_CAP_BELOW_BASE_FEE', 'max fee per gas less than block base fee');
    }
    effectiveGasPrice = tx.gasPrice;
    maxFee = tx.gasLimit * tx.gasPrice;
  }
  if (tx.type === 3) {
    if (tx.blobVersionedHashes.length === 0) return bad('BLOB_COUNT', 'blob transaction missing blob hashes');
    if (rules.maxBlobsPerTx !== 0 && tx.blobVersionedHashes.length > rules.maxBlobsPerTx) {
      return bad('BLOB_COUNT', 'blob transaction has too many blobs');
    }
    for (const h of tx.blobVersionedHashes) {
      if (h.length !== 32 || h[0] !== 0x01) return bad('BLOB_HASH_VERSION', 'blob version not supported');
    }
    if (tx.maxFeePerBlobGas < block.blobBaseFee && !isCall) {
      return bad('BLOB_FEE_CAP_TOO_LOW', 'max fee per blob gas less than block blob gas fee');
    }
    maxFee += blobGas * tx.maxFeePerBlobGas;
  }
  if (tx.to === undefined) {
    if (tx.type === 3) return bad('BLOB_CREATE', 'blob transaction of type create');
    if (tx.type === 4) return bad('SETCODE_CREATE', 'set code transaction of type create');
  }
  if (tx.type === 4 && tx.authorizationList.length === 0) {
    return bad('EMPTY_AUTHORIZATION_LIST', 'EIP-7702 transaction with empty auth list');
  }
  const sender = world.account(tx.from);
  if (!isCall) {
    if (sender.nonce > tx.nonce) return bad('NONCE_TOO_LOW', 'nonce too low');
    if (sender.nonce < tx.nonce) return bad('NONCE_TOO_HIGH', 'nonce too high');
  }
  const need = isCall ? tx.value : maxFee + tx.value;
  if (sender.balance < need) return bad('INSUFFICIENT_FUNDS', 'insufficient funds for gas * price + value');
  if (!isCall && !sender.codeEmpty && delegationTarget(world.code(sender)) < 0n) {
    return bad('SENDER_NOT_EOA', 'sender not an eoa');
  }
  return { ok: true, intrinsic, floor, effectiveGasPrice, blobGas };
}
