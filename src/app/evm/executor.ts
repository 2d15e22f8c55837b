// Executes a block's transactions on an execution state with runTx (never buildBlock: it is quadratic).
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, createContractAddress } from '@ethereumjs/util';
import { createBlock } from '@ethereumjs/block';
import type { VM } from '@ethereumjs/vm';
import { runTx } from './vm.ts';
import { TxRejectedError } from '../../errors/index.ts';
import type { ReceiptRecord } from '../../store/records.ts';
import { contextHeader, type BlockContext } from '../block.ts';
import { rejectReasonOf } from './ethereumjs.ts';

/** A transaction handed to the executor with its already-recovered sender. */
export interface ExecTx {
  tx: TypedTransaction;
  sender: Uint8Array;
  hash: Uint8Array;
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

/** The effective gas price a transaction pays at a base fee. */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxFeePerGas' in tx && 'maxPriorityFeePerGas' in tx) {
    const fee = tx.maxFeePerGas as bigint;
    const tip = tx.maxPriorityFeePerGas as bigint;
    return fee < baseFee + tip ? fee : baseFee + tip;
  }
  return (tx as unknown as { gasPrice: bigint }).gasPrice;
}

/**
 * Runs txs in order on `vm` (whose state manager is `state`, already checkpointed by the caller). Txs that are
 * invalid against the current state (nonce, balance, gas) are skipped and reported, as a block builder must.
 * Fees: Kestrel does not burn the base fee; the whole fee goes to the block's coinbase (the etherbase).
 */
export async function executeTxs(
  vm: VM,
  state: MerkleStateManager,
  common: Common,
  ctx: BlockContext,
  txs: ExecTx[],
): Promise<BlockExecution> {
  const block = createBlock({ header: contextHeader(ctx, common) }, { common, setHardfork: false });
  const included: ExecTx[] = [];
  const receipts: ReceiptRecord[] = [];
  const rejected: BlockExecution['rejected'] = [];
  let gasUsed = 0n;
  let burned = 0n;
  for (const item of txs) {
    const { tx } = item;
    if (gasUsed + tx.gasLimit > ctx.gasLimit) {
      rejected.push({ hash: item.hash, error: new TxRejectedError('gasLimitAboveBlock', 'exceeds block gas limit') });
      continue;
    }
    let r;
    try {
      r = await runTx(vm, { tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true });
    } catch (e) {
      const message = (e as Error).message;
      rejected.push({ hash: item.hash, error: new TxRejectedError(rejectReasonOf(message), message) });
      continue;
    }
    gasUsed = r.receipt.cumulativeBlockGasUsed;
    const txGas = r.totalGasSpent;
    burned += txGas * ctx.baseFeePerGas;
    const failed = r.execResult.exceptionError !== undefined;
    const receipt: ReceiptRecord = {
      type: tx.type,
      status: failed ? 0 : 1,
      cumulativeGasUsed: gasUsed,
      gasUsed: txGas,
      logs: (r.receipt.logs ?? []).map(([address, topics, data]) => ({ address, topics, data })),
      bloom: r.bloom.bitvector,
      from: item.sender,
      effectiveGasPrice: effectiveGasPrice(tx, ctx.baseFeePerGas),
    };
    if (tx.to) receipt.to = tx.to.bytes;
    else receipt.contractAddress = createContractAddress(new Address(item.sender), tx.nonce).bytes;
    included.push(item);
    receipts.push(receipt);
  }
  if (burned > 0n) {
    const coinbase = new Address(ctx.coinbase);
    const acc = await state.getAccount(coinbase);
    if (acc) {
      acc.balance += burned;
      await state.putAccount(coinbase, acc);
    } else {
      await state.modifyAccountFields(coinbase, { balance: burned });
    }
  }
  return { included, receipts, gasUsed, rejected };
}
