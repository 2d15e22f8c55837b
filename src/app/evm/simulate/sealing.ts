// The engine-neutral half of eth_simulateV1: a simulated block's header fields, each call turned into the
// transaction it runs as (defaults, gas pool and gas cap, geth's prechecks), the receipts' and calls' result
// shapes, and the sealed block record. The simulator (and the ethereumjs oracle of its tests) only execute.
import { createBlockHeader, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { rlpEncode } from '../../../primitives/rlp.ts';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, toChecksumAddress } from '@ethereumjs/util';
import { errorMessage, SimulateError } from '../../../errors/index.ts';
import { indexedTrieRoot } from '../../../primitives/trie/root.ts';
import type { CallRequest } from '../../../primitives/callRequest.ts';
import type { Withdrawal } from '../../../primitives/overrides.ts';
import { encodeBlock } from '../../../store/encoding.ts';
import type { BlockRecord, LogRecord, ReceiptRecord } from '../../../store/records.ts';
import { blockBloom, keccakOf, receiptsRoot, transactionsRoot } from '../../block.ts';
import { vmErrorText } from '../accessList.ts';
import { decodeRevertReason } from '../revert.ts';
import { precheck, type SenderState, type SimBlockPlan } from './plan.ts';
import { decodeTransaction } from '../../../primitives/tx/decode.ts';
import { encodeTx } from '../../../primitives/tx/encode.ts';
import { type Transaction } from '../../../primitives/tx/types.ts';

/** A call's failure as eth_simulateV1 reports it inside the result. */
export interface SimCallError {
  message: string;
  code: number;
  data?: Uint8Array;
}

/** One call's outcome. */
export interface SimCallResult {
  returnData: Uint8Array;
  logs: LogRecord[];
  gasUsed: bigint;
  maxUsedGas: bigint;
  status: 0 | 1;
  error?: SimCallError;
}

/** One simulated block: a block record (as stored blocks are) and its calls' outcomes. */
export interface SimBlockResult {
  block: BlockRecord;
  calls: SimCallResult[];
}

const ZERO32 = new Uint8Array(32);
const MAX_NONCE = 2n ** 64n - 1n;
/** EIP-3860's limit on init code (2 × the 24576-byte code limit). */
const MAX_INITCODE_SIZE = 49152;
const GWEI = 1_000_000_000n;
/** geth's code for a call that failed in the EVM (other than a revert). */
const VM_ERROR_CODE = -32015;
const REVERT_CODE = 3;

/** A simulated block's header fields before execution (defaults from its parent, then its overrides). */
export type HeaderFields = ReturnType<typeof headerFields>;

/** The header fields of `plan` on top of `parent`; without validation and an override, the base fee is 0. */
export function headerFields(plan: SimBlockPlan, parent: BlockHeader, validation: boolean) {
  const o = plan.overrides;
  return {
    parentHash: parent.hash(),
    coinbase: o.feeRecipient ?? parent.coinbase.bytes,
    number: plan.number,
    timestamp: plan.time,
    gasLimit: o.gasLimit ?? parent.gasLimit,
    mixHash: o.prevRandao ?? ZERO32,
    baseFeePerGas: o.baseFeePerGas ?? (validation ? parent.calcNextBaseFee() : 0n),
    parentBeaconBlockRoot: o.beaconRoot ?? ZERO32,
    difficulty: 0n,
  };
}

/** One call as the transaction it runs as. */
export interface PreparedCall {
  from: Uint8Array;
  sender: Address;
  /** The nonce the call names (or the sender's); the receipt's contract address derives from it. */
  nonce: bigint;
  /** The nonce the transaction carries (EIP-2681: 0 for a state nonce past 2^64-2, which only runs unchecked). */
  txNonce: bigint;
  gas: bigint;
  /** The gas cap, not the call, set `gas`. */
  capped: boolean;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  value: bigint;
  data: Uint8Array;
  /** The call pays for gas (it names a fee, or validation is on). */
  pays: boolean;
  tx: Transaction;
  hash: Uint8Array;
}

/** Where a block's calls stand: its gas limit and base fee, the gas used so far, the request's gas left. */
export interface CallContext {
  common: Common;
  gasLimit: bigint;
  gasUsed: bigint;
  budget: bigint;
  baseFee: bigint;
  validation: boolean;
}

/**
 * A call's transaction, with geth's checks before it runs (block gas, init code size, the request's fields, then
 * nonce, fees, funds and intrinsic gas against `sender`).
 */
export function prepareCall(req: CallRequest, sender: SenderState, ctx: CallContext): PreparedCall {
  const from = req.from ?? new Uint8Array(20);
  const nonce = req.nonce ?? sender.nonce;
  const remaining = ctx.gasLimit - ctx.gasUsed;
  const asked = req.gas ?? remaining;
  if (remaining < asked) {
    throw new SimulateError(
      'BLOCK_GAS_LIMIT_REACHED',
      `block gas limit reached: remaining: ${remaining}, required: ${asked}`,
    );
  }
  const gas = asked < ctx.budget ? asked : ctx.budget;
  const maxFeePerGas = req.gasPrice ?? req.maxFeePerGas ?? 0n;
  const maxPriorityFeePerGas = req.gasPrice ?? req.maxPriorityFeePerGas ?? 0n;
  const data = req.data ?? new Uint8Array(0);
  if (req.to === undefined && data.length > MAX_INITCODE_SIZE) {
    throw new SimulateError(
      'INIT_CODE_TOO_LARGE',
      `err: max initcode size exceeded: code size ${data.length} limit ${MAX_INITCODE_SIZE} (supplied gas ${gas})`,
    );
  }
  const txNonce = nonce < MAX_NONCE ? nonce : 0n;
  const value = req.value ?? 0n;
  const tx = buildTx(
    {
      type: 2,
      chainId: ctx.common.chainId(),
      nonce: txNonce,
      gasLimit: gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
      to: req.to,
      value,
      data,
      accessList: (req.accessList ?? []).map((a) => [a.address, a.storageKeys]) as never,
    },
    ctx.common,
  );
  const address = new Address(from);
  // The record's transaction is read again by sealing (roots, size) and formatting: its sender and encoding are
  // fixed, so they are answered from here (an unsigned tx has no sender to recover, and encoding it again is not free).
  const { tx: record, hash } = decodeTransaction(tx.serialize());
  precheck(
    {
      // Only an error message needs the checksummed sender (a JS keccak of its own).
      get from() {
        return toChecksumAddress(address.toString());
      },
      nonce,
      gas,
      value,
      maxFeePerGas,
      maxPriorityFeePerGas,
      intrinsicGas: tx.getIntrinsicGas(),
    },
    sender,
    ctx.baseFee,
    ctx.validation,
  );
  return {
    from,
    sender: address,
    nonce,
    txNonce,
    gas,
    capped: gas < asked,
    maxFeePerGas,
    maxPriorityFeePerGas,
    value,
    data,
    pays: maxFeePerGas > 0n || ctx.validation,
    tx: record,
    hash,
  };
}

/** Builds the simulated transaction; a field ethereumjs refuses is the request's fault. */
function buildTx(data: Parameters<typeof createTx>[0], common: Common): TypedTransaction {
  try {
    return createTx(data, { common, freeze: false });
  } catch (e) {
    throw new SimulateError('INVALID_PARAMS', `err: ${errorMessage(e).split(' (')[0]}`);
  }
}

/** What a paying call pays per gas. */
export function effectivePrice(feeCap: bigint, tip: bigint, baseFee: bigint): bigint {
  return feeCap < baseFee + tip ? feeCap : baseFee + tip;
}

/** A withdrawal's amount in wei (withdrawals name gwei). */
export function withdrawalWei(w: Withdrawal): bigint {
  return w.amount * GWEI;
}

function withdrawalItem(w: Withdrawal): Uint8Array[] {
  const q = (n: bigint) =>
    n === 0n
      ? new Uint8Array(0)
      : Uint8Array.from(Buffer.from(n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0'), 'hex'));
  return [q(w.index), q(w.validatorIndex), w.address, q(w.amount)];
}

/** A simulated block's transactions and receipts so far. */
export interface BlockBody {
  txs: Transaction[];
  hashes: Uint8Array[];
  senders: Uint8Array[];
  receipts: ReceiptRecord[];
  gasUsed: bigint;
}

/** Seals a simulated block: roots of its transactions, receipts and withdrawals, and its state root. */
export function sealBlock(
  common: Common,
  fields: HeaderFields,
  body: BlockBody,
  withdrawals: Withdrawal[],
  stateRoot: Uint8Array,
): BlockRecord {
  const hashFn = keccakOf(common);
  const header = createBlockHeader(
    {
      ...fields,
      stateRoot,
      transactionsTrie: transactionsRoot(body.txs.map(encodeTx), hashFn),
      receiptTrie: receiptsRoot(body.receipts, hashFn),
      logsBloom: blockBloom(body.receipts),
      gasUsed: body.gasUsed,
      withdrawalsRoot: indexedTrieRoot(
        withdrawals.map((w) => rlpEncode(withdrawalItem(w))),
        hashFn,
      ),
      blobGasUsed: 0n,
      excessBlobGas: 0n,
    },
    { common, setHardfork: false },
  );
  const record: BlockRecord = {
    header,
    hash: header.hash(),
    number: fields.number,
    txs: body.txs,
    txHashes: body.hashes,
    senders: body.senders,
    size: 0n,
  };
  record.size = BigInt(encodeBlock(record, withdrawals.map(withdrawalItem)).length);
  return record;
}

/** A failed call's error: a revert with its data and reason, or geth's -32015 with the EVM error. */
export function callError(error: string, data: Uint8Array, capped: boolean): SimCallError {
  if (error === 'revert') {
    const reason = decodeRevertReason(data);
    return {
      message: reason !== undefined ? `execution reverted: ${reason}` : 'execution reverted',
      code: REVERT_CODE,
      data,
    };
  }
  // The spec's schema wants "vm execution error…" for -32015 (geth sends the bare EVM error: "out of gas").
  const text = `vm execution error: ${vmErrorText(error)}`;
  return {
    message: capped ? `${text} (gas limit was capped by the RPC server's global gas cap)` : text,
    code: VM_ERROR_CODE,
  };
}
