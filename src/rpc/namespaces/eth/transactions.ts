// eth_ transaction lookups, receipts and raw submission. Pending txs are visible with null block fields.
import type { BlockRecord } from '../../../store/records.ts';
import { TxSyncTimeoutError } from '../../../errors/index.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { quantity } from '../../../app/fork/history.ts';
import { upstreamHash, upstreamHeight } from './forkHistory.ts';
import { formatReceipt, firstLogIndex } from '../../format/receipt.ts';
import { formatTx } from '../../format/tx.ts';
import { defineMethod } from '../../method.ts';
import {
  ParamError,
  blockNumberOrTag,
  codec,
  hash32,
  optional,
  rawTx,
  uint64,
  uintIndex,
  type Codec,
} from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'calls' | 'chain' | 'compat' | 'pool' | 'txs'>;

function txAt(b: BlockRecord | undefined, i: number): Record<string, unknown> | null {
  if (!b || i >= b.txs.length) return null;
  return formatTx(b.txs[i]!, b.senders[i]!, b.txHashes[i]!, {
    blockHash: b.hash,
    blockNumber: b.number,
    index: i,
    timestamp: b.header.timestamp,
    baseFee: b.header.baseFeePerGas,
  });
}

/** Handler for eth_getTransactionByHash. */
export const getTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  params: [hash32],
  handler: (ctx: Ctx, [hash]) => {
    const mined = ctx.chain.minedTx(hash);
    if (mined) return txAt(mined.block, mined.index);
    const pooled = ctx.pool.get(hash);
    if (pooled) return formatTx(pooled.tx, pooled.sender, pooled.hash);
    // Forked: a tx the upstream mined at or below the fork block.
    return ctx.calls.upstream?.history.transaction(bytesToHex(hash)) ?? null;
  },
});

/** Handler for eth_getTransactionByBlockHashAndIndex. */
export const getTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockHashAndIndex',
  params: [hash32, uintIndex],
  handler: async (ctx: Ctx, [hash, i]) => {
    const up = upstreamHash(ctx, hash);
    if (!up) return txAt(ctx.chain.blockByHash(hash), i);
    const b = (await up.blockByHash(bytesToHex(hash), false)) as { number: string } | null;
    return b ? up.call('eth_getTransactionByBlockHashAndIndex', [bytesToHex(hash), quantity(BigInt(i))]) : null;
  },
});

/** Handler for eth_getTransactionByBlockNumberAndIndex. */
export const getTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockNumberAndIndex',
  params: [blockNumberOrTag, uintIndex],
  handler: (ctx: Ctx, [sel, i]) => {
    const up = upstreamHeight(ctx, sel);
    if (up) {
      return up.history.call('eth_getTransactionByBlockNumberAndIndex', [quantity(up.number), quantity(BigInt(i))]);
    }
    return txAt(ctx.chain.findBlock(sel), i);
  },
});

function receiptOf(ctx: Ctx, hash: Uint8Array): Record<string, unknown> | null {
  const mined = ctx.chain.minedTx(hash);
  if (!mined) return null;
  const receipts = ctx.chain.receipts(mined.block);
  // Only the logs before this receipt are counted: a poll per tx of a large block stays linear in the block.
  return formatReceipt(mined.block, receipts, mined.index, firstLogIndex(receipts, mined.index), ctx.compat);
}

/** Handler for eth_getTransactionReceipt (null until mined). */
export const getTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  params: [hash32],
  handler: (ctx: Ctx, [hash]) => {
    const local = receiptOf(ctx, hash);
    if (local !== null || ctx.pool.get(hash) !== undefined) return local;
    // Forked: a receipt of a tx the upstream mined at or below the fork block.
    return ctx.calls.upstream?.history.receipt(bytesToHex(hash)) ?? null;
  },
});

/** Handler for eth_sendRawTransaction (in instant mode it answers once the tx's block is committed). */
export const sendRawTransaction = defineMethod({
  name: 'eth_sendRawTransaction',
  params: [rawTx],
  handler: async (ctx: Ctx, [raw]) => {
    const hash = await ctx.txs.submitRaw(raw);
    await ctx.txs.inclusion(hash);
    return bytesToHex(hash);
  },
});

/** eth_sendRawTransactionSync's wait when the call names none (or 0), and the longest it may ask for (as geth). */
export const TX_SYNC_DEFAULT_TIMEOUT_MS = 20_000;
export const TX_SYNC_MAX_TIMEOUT_MS = 60_000;

/** The wait in milliseconds: a hex quantity (geth's hexutil.Uint64) or a JSON integer (EIP-7966's examples). */
const timeoutMs: Codec<bigint> = codec((raw) => {
  if (typeof raw !== 'number') return uint64.decode(raw);
  if (!Number.isSafeInteger(raw) || raw < 0) throw new ParamError(`expected a non-negative integer, got ${raw}`);
  return BigInt(raw);
});

/** A duration as Go prints it (geth's timeout message): 500ms, 2s, 1.5s, 1m0s. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = `${(ms % 60_000) / 1000}s`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

/**
 * Handler for eth_sendRawTransactionSync (EIP-7966): the receipt once a committed block holds the tx (final: blocks
 * are final when committed); after the timeout geth's code-4 error with the hash as data.
 */
export const sendRawTransactionSync = defineMethod({
  name: 'eth_sendRawTransactionSync',
  params: [rawTx, optional(timeoutMs)],
  handler: async (ctx: Ctx, [raw, asked]) => {
    const timeout =
      asked === undefined || asked === 0n
        ? TX_SYNC_DEFAULT_TIMEOUT_MS
        : Math.min(Number(asked), TX_SYNC_MAX_TIMEOUT_MS);
    const started = Date.now();
    const hash = await ctx.txs.submitRaw(raw);
    await ctx.txs.inclusion(hash);
    const mined = await ctx.txs.minedWithin(hash, Math.max(0, timeout - (Date.now() - started)));
    const receipt = mined ? receiptOf(ctx, hash) : null;
    if (receipt) return receipt;
    throw new TxSyncTimeoutError(
      hash,
      `The transaction was added to the transaction pool but wasn't processed in ${goDuration(timeout)}.`,
    );
  },
});

export const transactionMethods = [
  getTransactionByHash,
  getTransactionByBlockHashAndIndex,
  getTransactionByBlockNumberAndIndex,
  getTransactionReceipt,
  sendRawTransaction,
  sendRawTransactionSync,
];
