// Transaction admission (CheckTx): decoding, signature, chain id and the stateful checks, in geth's order and
// with geth's messages, because wallets and libraries match on them.
import type { Common } from '@ethereumjs/common';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import secp256k1 from 'secp256k1';
import { TxRejectedError } from '../../errors/index.ts';
import type { ExecTx } from './executor.ts';
import { keccak256 } from '../../primitives/hash.ts';
import { bareHex, bytesToBigint, padLeft } from '../../primitives/hex.ts';
import { recoveryId } from './common.ts';
import { signedParts, type SignedParts } from './signingHash.ts';

/** Largest accepted serialized transaction (geth's txMaxSize, 4 slots of 32 KiB). */
export const MAX_TX_BYTES = 128 * 1024;
const SUPPORTED_TYPES = new Set([0, 1, 2, 4]);

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

/**
 * A tx that passed every stateless check but sender recovery: either its recovery job, or (a non-canonical
 * encoding, which ethereumjs re-encodes to recover) the public key already recovered.
 */
export interface UnrecoveredTx {
  tx: TypedTransaction;
  hash: Uint8Array;
  encoded: Uint8Array;
  job?: RecoveryJob;
  publicKey?: Uint8Array;
}

/** Decodes raw tx bytes and recovers the sender; stateless checks only. */
export function decodeTx(raw: Uint8Array, common: Common, rules: AdmissionRules): ExecTx {
  const u = prepareTx(raw, common, rules);
  return recoveredTx(u, u.publicKey ?? recoverNow(u.job!), common);
}

/** Recovers a job's public key (64 bytes) on this thread; throws TxRejectedError('invalidSender'). */
export function recoverNow(job: RecoveryJob): Uint8Array {
  try {
    return secp256k1.ecdsaRecover(job.sig, job.recid, job.msgHash, false).slice(1);
  } catch {
    throw invalidSender();
  }
}

/** The decoded tx with its sender, from the public key its recovery job gave. */
export function recoveredTx(u: UnrecoveredTx, publicKey: Uint8Array, common: Common): ExecTx {
  const keccak = common.customCrypto.keccak256 ?? keccak256;
  return { tx: u.tx, sender: keccak(publicKey).slice(12), hash: u.hash, encoded: u.encoded };
}

function invalidSender(): TxRejectedError {
  return new TxRejectedError('invalidSender', 'invalid sender');
}

/**
 * Every stateless check of decodeTx in its order (size, type, decoding, EIP-155, chain id, the signature's s and
 * v), leaving out only the elliptic-curve recovery, which the caller may run elsewhere (a worker thread).
 */
export function prepareTx(raw: Uint8Array, common: Common, rules: AdmissionRules): UnrecoveredTx {
  if (raw.length === 0) throw new TxRejectedError('malformed', 'typed transaction too short');
  if (raw.length > MAX_TX_BYTES) throw new TxRejectedError('oversized', 'oversized data');
  if (raw[0]! <= 0x7f && !SUPPORTED_TYPES.has(raw[0]!))
    throw new TxRejectedError('unsupportedType', 'transaction type not supported');
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common });
  } catch (e) {
    throw new TxRejectedError('malformed', `rlp: invalid transaction: ${shortReason(e)}`);
  }
  if (tx.type === 0 && !(tx as unknown as { supports(eip: number): boolean }).supports(155)) {
    throw new TxRejectedError('notReplayProtected', 'only replay-protected (EIP-155) transactions allowed over RPC');
  }
  const txChainId = (tx as unknown as { common: Common }).common.chainId();
  if (txChainId !== rules.evmChainId) {
    throw new TxRejectedError(
      'invalidChainId',
      `invalid chain id for signer: have ${txChainId} want ${rules.evmChainId}`,
    );
  }
  const keccak = common.customCrypto.keccak256 ?? keccak256;
  // The hash is keccak of the canonical encoding (as tx.hash() computes it), kept for the block's tx trie. The
  // bytes received are that encoding unless an integer the decoder does not check carries leading zeros.
  const canonical = isCanonical(raw, tx.type);
  const encoded = canonical ? raw : tx.serialize();
  const hash = keccak(encoded);
  try {
    // ethereumjs's getSenderAddress re-encodes the signed fields and hashes the public key with its pure-JS
    // keccak; the signed bytes are read off the encoding, and the chain's keccak (WebAssembly in the node) gives
    // the same 20 bytes for a fraction of the cost.
    const parts = canonical ? signedParts(raw, tx.type, txChainId, keccak) : undefined;
    if (!parts) return { tx, hash, encoded, publicKey: tx.getSenderPublicKey() };
    return { tx, hash, encoded, job: recoveryJob(tx, parts, txChainId) };
  } catch {
    throw invalidSender();
  }
}

/** secp256k1n / 2: a larger s is refused since Homestead (EIP-2). */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** ethereumjs's getSenderPublicKey checks over already extracted parts, leaving the recovery itself as a job. */
function recoveryJob(tx: TypedTransaction, parts: SignedParts, chainId: bigint): RecoveryJob {
  if (bytesToBigint(parts.s) > HALF_ORDER) throw new Error('high s');
  const recid = recoveryId(tx.v!, tx.type === 0 ? chainId : undefined);
  if (recid !== 0 && recid !== 1) throw new Error('invalid signature v value');
  const sig = new Uint8Array(64);
  sig.set(padLeft(parts.r, 32), 0);
  sig.set(padLeft(parts.s, 32), 32);
  return { msgHash: parts.msgHash, sig, recid };
}

/**
 * Whether a decoded tx's received bytes are its canonical encoding (tx.serialize()). The RLP decoder refuses
 * non-canonical lengths and prefixes, the tx constructors refuse leading zeros in every integer field and check
 * address and storage-key lengths, and byte fields are kept verbatim: all but a typed tx's chainId, checked here.
 */
function isCanonical(raw: Uint8Array, type: number): boolean {
  if (type === 0) return true;
  // raw = type byte, list prefix (1 byte, or 1 + length-of-length), then the chainId item.
  const list = raw[1]!;
  const at = 2 + (list > 0xf7 ? list - 0xf7 : 0);
  const b = raw[at]!;
  if (b < 0x80) return b !== 0; // a single byte: 0x00 would be zero with a leading zero (zero is 0x80)
  return b === 0x80 || (b <= 0xb7 && raw[at + 1] !== 0);
}

function shortReason(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg
    .split('\n')[0]!
    .replace(/\s*\(.*$/, '')
    .slice(0, 200);
}

/** Max fee per gas a tx commits to (gasPrice for legacy/2930). */
export function feeCap(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as unknown as { gasPrice: bigint }).gasPrice;
}

/** Priority fee cap (gasPrice for legacy/2930). */
export function tipCap(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? (tx.maxPriorityFeePerGas as bigint) : feeCap(tx);
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
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic) throw new TxRejectedError('intrinsicGas', 'intrinsic gas too low');
  // EIP-7623 (Prague): calldata-heavy txs must also cover the calldata floor, or execution would refuse them.
  if (tx.gasLimit < tx.getMinimumGasLimit())
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
