// Executes a block's transactions on Kestrel's engine: one WorldState over the parent state for the whole block,
// synchronously, then its diff is written to the app's trie (stateWriter.ts) for the state root.
import { Address, createContractAddress } from '@ethereumjs/util';
import {
  executeTransaction,
  type AccountDiff,
  type BlockEnv,
  type ExecOptions,
  type Fork,
  type Log,
  type TxInvalidReason,
  type WorldState,
} from '../../evm/index.ts';
import { BoundedMemo } from '../../primitives/boundedMemo.ts';
import { bloomBitsOf, setBloomBits } from '../../primitives/bloom.ts';
import { encodeTx } from '../../primitives/tx/encode.ts';
import type { Transaction } from '../../primitives/tx/types.ts';
import { addressToBytes, wordToBytes } from '../../primitives/bytes.ts';
import { TxRejectedError, type TxRejectReason } from '../../errors/index.ts';
import type { LogRecord, ReceiptRecord } from '../../store/records.ts';
import type { BlockContext } from '../block.ts';
import { blockSizeBudget } from '../blockSize.ts';
import { engineTxOf, preExecution } from './engineTx.ts';
import { chainPrecompiles, chainRules } from '../staking/chain.ts';
import type { ValidatorUpdate } from '../staking/staking.ts';

/** geth's ErrBlockOversized, for a tx left out of a block it would take past EIP-7934's cap. */
const BLOCK_OVERSIZED = 'block RLP-encoded size exceeds maximum';

/** A transaction handed to the executor with its already-recovered sender. */
export interface ExecTx {
  tx: Transaction;
  sender: Uint8Array;
  hash: Uint8Array;
  /** The tx's canonical encoding (encodeTx), when its decoder already had it: sealing a block reuses it. */
  encoded?: Uint8Array;
}

/** A transaction block execution could not include, and why. */
export interface Rejection {
  hash: Uint8Array;
  error: TxRejectedError;
}

/** What executing a block's transaction list produced. */
export interface BlockExecution {
  included: ExecTx[];
  receipts: ReceiptRecord[];
  gasUsed: bigint;
  /** Transactions that could not be included (invalid against the state they met), with the reason. */
  rejected: Rejection[];
}

/** A block's execution and the state changes it made (for the trie). */
export interface EngineBlockExecution extends BlockExecution {
  diff: AccountDiff[];
  /** Validator-set changes the modules made at the end of the block (for consensus). */
  validatorUpdates?: ValidatorUpdate[];
}

/** The modules' work before and after a block's transactions, on the block's WorldState. */
export interface BlockHooks {
  begin(world: WorldState): void;
  end(world: WorldState): ValidatorUpdate[];
}

/** Kestrel's fork, fee rule and precompiles (chain.ts: the whole fee to the coinbase, or to the stakers). */
function blockOptions(fork: Fork): ExecOptions {
  return { fork, rules: chainRules(), precompiles: chainPrecompiles(fork) };
}

/** The effective gas price a transaction pays at a base fee. */
export function effectiveGasPrice(tx: Transaction, baseFee: bigint): bigint {
  if (tx.type >= 2) {
    const fee = tx.maxFeePerGas;
    const tip = tx.maxPriorityFeePerGas;
    return fee < baseFee + tip ? fee : baseFee + tip;
  }
  return tx.gasPrice;
}

/**
 * The reason (and so the ABCI code, which CometBFT hashes into the next header's LastResultsHash) a tx the block
 * could not include gets. Under ethereumjs every one of these refusals was worded so that it read as 'other'
 * (code 18); they keep that code, so a chain's results hash does not change with the engine. The message is
 * the engine's, in geth's words.
 */
export function blockRejectReason(_reason: TxInvalidReason): TxRejectReason {
  return 'other';
}

/**
 * The three bloom bit indexes (Yellow Paper §4.3.1) of a log's address or topic, by its value: a token's address,
 * its event signature and its active holders recur in every block, and each costs a keccak otherwise. Pure, so
 * shared by every block; started over when large.
 */
const MAX_BLOOM_MEMO = 100_000;
const bloomBits = new BoundedMemo<bigint, number>(MAX_BLOOM_MEMO);

/** The packed bloom bits of `value` (bloomBitsOf), memoised by `key`. */
function bitsOf(key: bigint, value: Uint8Array): number {
  let bits = bloomBits.get(key);
  if (bits === undefined) {
    bits = bloomBitsOf(value);
    bloomBits.set(key, bits);
  }
  return bits;
}

/** Sets the three bloom bits of one value; `key` tells a topic (≥ 0) from an address (< 0). */
function bloomAdd(bloom: Uint8Array, key: bigint, value: Uint8Array): void {
  setBloomBits(bloom, bitsOf(key, value));
}

/** A log as the receipt stores it, and its bits in the receipt's bloom (block execution and eth_simulateV1). */
export function logRecord(log: Log, bloom: Uint8Array): LogRecord {
  const address = addressToBytes(log.address);
  // Addresses hash their 20 bytes, topics their 32: the memo keys them apart (an address as -1 - address).
  bloomAdd(bloom, -1n - log.address, address);
  const topics = log.topics.map((t) => {
    const b = wordToBytes(t);
    bloomAdd(bloom, t, b);
    return b;
  });
  return { address, topics, data: log.data };
}

/**
 * Runs the block's system call (EIP-2935, see preExecution), then txs in order on `world` (one WorldState for the
 * block, over its parent state). Txs that are invalid
 * against the state they meet (nonce, balance, gas) are skipped and reported, as a block builder must; so is a tx
 * whose gas limit no longer fits in the block. From Osaka, once a tx would take the block past EIP-7934's size
 * cap, it and every later one are left for a later block (geth's miner stops there too: a sender's later nonces
 * would only fail behind the one left out).
 */
export function executeBlock(
  world: WorldState,
  ctx: BlockContext,
  env: BlockEnv,
  txs: ExecTx[],
  fork: Fork,
  hooks?: BlockHooks,
): EngineBlockExecution {
  const opts = blockOptions(fork);
  hooks?.begin(world);
  const included: ExecTx[] = [];
  const receipts: ReceiptRecord[] = [];
  const rejected: Rejection[] = [];
  const size = blockSizeBudget(fork);
  let full = false;
  let gasUsed = 0n;
  // The receipts' blooms are views into one array: a block's receipts live and go together, and a separate 256-byte
  // array (a backing store of its own) per receipt was an allocation and a free per tx.
  const blooms = new Uint8Array(256 * txs.length);
  preExecution(world, env, ctx.parentHash, fork);
  for (const item of txs) {
    const { tx } = item;
    // Only a capped fork needs the encoding (the decoder's, else made here: the block's seal makes it anyway).
    const encoded = size.cap === 0 ? undefined : (item.encoded ??= encodeTx(tx));
    if (full || (encoded !== undefined && !size.fits(encoded))) {
      full = true;
      rejected.push({ hash: item.hash, error: new TxRejectedError('blockSizeAboveCap', BLOCK_OVERSIZED) });
      continue;
    }
    if (gasUsed + tx.gasLimit > ctx.gasLimit) {
      rejected.push({ hash: item.hash, error: new TxRejectedError('gasLimitAboveBlock', 'exceeds block gas limit') });
      continue;
    }
    const out = executeTransaction(world, env, engineTxOf(tx, item.sender), opts);
    if (!out.ok) {
      rejected.push({ hash: item.hash, error: new TxRejectedError(blockRejectReason(out.reason), out.message) });
      continue;
    }
    const r = out.result;
    gasUsed += r.gasUsed;
    const bloom = blooms.subarray(256 * receipts.length, 256 * (receipts.length + 1));
    const receipt: ReceiptRecord = {
      type: tx.type,
      status: r.status === 'success' ? 1 : 0,
      cumulativeGasUsed: gasUsed,
      gasUsed: r.gasUsed,
      logs: r.logs.map((l) => logRecord(l, bloom)),
      bloom,
      from: item.sender,
      effectiveGasPrice: effectiveGasPrice(tx, ctx.baseFeePerGas),
    };
    // A creation names its address in the receipt whether or not it succeeded (as ethereumjs and geth do).
    if (tx.to) receipt.to = tx.to;
    else receipt.contractAddress = createContractAddress(new Address(item.sender), tx.nonce).bytes;
    included.push(item);
    receipts.push(receipt);
    if (encoded !== undefined) size.add(encoded);
  }
  const validatorUpdates = hooks?.end(world);
  const out: EngineBlockExecution = { included, receipts, gasUsed, rejected, diff: world.diff() };
  if (validatorUpdates !== undefined) out.validatorUpdates = validatorUpdates;
  return out;
}
