// Transaction admission (CheckTx): decoding, signature, chain id and the stateful checks, in geth's order and
// with geth's messages, because wallets and libraries match on them.
import { secp256k1 } from '../../primitives/secp256k1.ts';
import { TxRejectedError, type TxRejectReason } from '../../errors/index.ts';
import { type Fork, intrinsicGas } from '../../evm/index.ts';
import type { ExecTx } from './executor.ts';
import { keccak256 } from '../../primitives/hash.ts';
import { bareHex } from '../../primitives/hex.ts';
import { bigintToFixedBytes } from '../../primitives/bytes.ts';
import { decodeTransaction, signingHashOf } from '../../primitives/tx/decode.ts';
import { SECP256K1_N, type Transaction, TxDecodeError, type TxDecodeErrorKind } from '../../primitives/tx/types.ts';
import { engineTxOf } from './engineTx.ts';

/** Largest accepted serialized transaction (geth's txMaxSize, 4 slots of 32 KiB). */
export const MAX_TX_BYTES = 128 * 1024;
/** Types admitted over the pool: blob txs (3) are refused, as Kestrel's blocks carry no blobs. */
const SUPPORTED_TYPES = new Set([0, 1, 2, 4]);
/** EIP-3860's initcode cap (Shanghai on: every fork Kestrel runs). */
const MAX_INITCODE_SIZE = 49152;

/** Account facts admission needs. */
export interface AccountState {
  nonce: bigint;
  balance: bigint;
}

/** Chain parameters admission needs. */
export interface AdmissionRules {
  evmChainId: bigint;
  blockGasLimit: bigint;
  baseFee: bigint;
  minGasPrice: bigint;
  /** The fork the next block runs (intrinsic gas and the EIP-7623 floor follow it). */
  fork: Fork;
  /** EIP-7825 (Osaka): the largest gas limit a transaction may carry; absent or 0n when uncapped. */
  txGasLimitCap?: bigint;
}

/**
 * What sender recovery needs from a signature: the signed message's hash, r ‖ s (64 bytes) and the recovery id
 * (0 or 1). The same inputs give the same public key on any thread (the same native call).
 */
export interface RecoveryJob {
  msgHash: Uint8Array;
  sig: Uint8Array;
  recid: number;
}

/** A tx that passed every stateless check but sender recovery, with the recovery job to run (anywhere). */
export interface UnrecoveredTx {
  tx: Transaction;
  hash: Uint8Array;
  encoded: Uint8Array;
  job: RecoveryJob;
}

/** Decodes raw tx bytes and recovers the sender; stateless checks only. */
export function decodeTx(raw: Uint8Array, rules: AdmissionRules): ExecTx {
  const u = prepareTx(raw, rules);
  return recoveredTx(u, recoverNow(u.job));
}

/** Recovers a job's public key (64 bytes) on this thread; throws TxRejectedError('invalidSender'). */
export function recoverNow(job: RecoveryJob): Uint8Array {
  try {
    return secp256k1().ecdsaRecover(job.sig, job.recid, job.msgHash, false).slice(1);
  } catch {
    throw invalidSender();
  }
}

/** The decoded tx with its sender, from the public key its recovery job gave. */
export function recoveredTx(u: UnrecoveredTx, publicKey: Uint8Array): ExecTx {
  return { tx: u.tx, sender: keccak256(publicKey).subarray(12), hash: u.hash, encoded: u.encoded };
}

function invalidSender(): TxRejectedError {
  return new TxRejectedError('invalidSender', 'invalid sender');
}

/** The pool's reason for each decoder refusal (the message stays the decoder's: geth's). */
const DECODE_REASON: Record<TxDecodeErrorKind, TxRejectReason> = {
  malformed: 'malformed',
  unsupportedType: 'unsupportedType',
  invalidSignature: 'invalidSender',
  nonceMax: 'malformed',
  feeTooHigh: 'malformed',
  tipAboveFeeCap: 'tipAboveFeeCap',
};

/**
 * Every stateless check of decodeTx in its order (size, type, decoding, EIP-155, chain id, the signature's values),
 * leaving out only the elliptic-curve recovery, which the caller may run elsewhere (a worker thread).
 */
export function prepareTx(raw: Uint8Array, rules: AdmissionRules): UnrecoveredTx {
  if (raw.length === 0) throw new TxRejectedError('malformed', 'typed transaction too short');
  if (raw.length > MAX_TX_BYTES) throw new TxRejectedError('oversized', 'oversized data');
  if (raw[0]! <= 0x7f && !SUPPORTED_TYPES.has(raw[0]!))
    throw new TxRejectedError('unsupportedType', 'transaction type not supported');
  let d;
  try {
    d = decodeTransaction(raw);
  } catch (e) {
    if (e instanceof TxDecodeError) throw new TxRejectedError(DECODE_REASON[e.kind], e.message);
    throw e;
  }
  const { tx } = d;
  if (tx.chainId === undefined) {
    throw new TxRejectedError('notReplayProtected', 'only replay-protected (EIP-155) transactions allowed over RPC');
  }
  if (tx.chainId !== rules.evmChainId) {
    throw new TxRejectedError(
      'invalidChainId',
      `invalid chain id for signer: have ${tx.chainId} want ${rules.evmChainId}`,
    );
  }
  // geth's ValidateSignatureValues (the decoder already refused a high s and a bad v).
  if (tx.r === 0n || tx.s === 0n || tx.r >= SECP256K1_N) {
    throw new TxRejectedError('invalidSender', 'invalid transaction v, r, s values');
  }
  const sig = new Uint8Array(64);
  sig.set(bigintToFixedBytes(tx.r, 32), 0);
  sig.set(bigintToFixedBytes(tx.s, 32), 32);
  const recid = tx.type === 0 ? Number(tx.v - 35n - tx.chainId * 2n) : Number(tx.v);
  return { tx, hash: d.hash, encoded: d.encoded, job: { msgHash: signingHashOf(d), sig, recid } };
}

/** Max fee per gas a tx commits to (gasPrice for legacy/2930). */
export function feeCap(tx: Transaction): bigint {
  return tx.maxFeePerGas;
}

/** Priority fee cap (gasPrice for legacy/2930). */
export function tipCap(tx: Transaction): bigint {
  return tx.maxPriorityFeePerGas;
}

/**
 * Admission checks against the latest state, in geth's order (stateless limits first, then nonce and balance);
 * throws TxRejectedError with geth's message.
 */
export function checkAgainstState(item: ExecTx, account: AccountState, rules: AdmissionRules): void {
  const { tx } = item;
  // EIP-7825, where geth's pool checks it: before the block gas limit.
  const gasCap = rules.txGasLimitCap ?? 0n;
  if (gasCap !== 0n && tx.gasLimit > gasCap) {
    throw new TxRejectedError('gasLimitTooHigh', `transaction gas limit too high (cap: ${gasCap}, tx: ${tx.gasLimit})`);
  }
  if (tx.gasLimit > rules.blockGasLimit) throw new TxRejectedError('gasLimitAboveBlock', 'exceeds block gas limit');
  const cap = feeCap(tx);
  if (tipCap(tx) > cap)
    throw new TxRejectedError('tipAboveFeeCap', 'max priority fee per gas higher than max fee per gas');
  if (tx.to === undefined && tx.data.length > MAX_INITCODE_SIZE) {
    throw new TxRejectedError(
      'other',
      `max initcode size exceeded: code size ${tx.data.length}, limit ${MAX_INITCODE_SIZE}`,
    );
  }
  const intrinsic = intrinsicGas(engineTxOf(tx, item.sender), rules.fork);
  if (tx.gasLimit < intrinsic.gas) throw new TxRejectedError('intrinsicGas', 'intrinsic gas too low');
  // EIP-7623 (Prague): calldata-heavy txs must also cover the calldata floor, or execution would refuse them.
  if (tx.gasLimit < intrinsic.floor)
    throw new TxRejectedError('floorDataGas', 'insufficient gas for floor data gas cost');
  if (cap < rules.minGasPrice) throw new TxRejectedError('underpriced', 'transaction underpriced');
  if (cap < rules.baseFee) {
    throw new TxRejectedError(
      'feeCapBelowBaseFee',
      `max fee per gas less than block base fee: address ${'0x' + bareHex(item.sender)}, maxFeePerGas: ${cap}, baseFee: ${rules.baseFee}`,
    );
  }
  if (tx.nonce < account.nonce) throw new TxRejectedError('nonceTooLow', 'nonce too low');
  if (account.balance < tx.value + tx.gasLimit * cap) {
    throw new TxRejectedError('insufficientFunds', 'insufficient funds for gas * price + value');
  }
}
