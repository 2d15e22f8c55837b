// eth_ transaction lookups, receipts and raw submission. Pending txs are visible with null block fields.
import type { BlockRecord } from '../../../store/records.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { formatReceipt, firstLogIndexes } from '../../format/receipt.ts';
import { formatTx } from '../../format/tx.ts';
import { defineMethod } from '../../method.ts';
import { blockNumberOrTag, hash32, rawTx, uintIndex } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'chain' | 'compat' | 'pool' | 'txs'>;

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
    return pooled ? formatTx(pooled.tx, pooled.sender, pooled.hash) : null;
  },
});

/** Handler for eth_getTransactionByBlockHashAndIndex. */
export const getTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockHashAndIndex',
  params: [hash32, uintIndex],
  handler: (ctx: Ctx, [hash, i]) => txAt(ctx.chain.blockByHash(hash), i),
});

/** Handler for eth_getTransactionByBlockNumberAndIndex. */
export const getTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockNumberAndIndex',
  params: [blockNumberOrTag, uintIndex],
  handler: (ctx: Ctx, [sel, i]) => txAt(ctx.chain.findBlock(sel), i),
});

/** Handler for eth_getTransactionReceipt (null until mined). */
export const getTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  params: [hash32],
  handler: (ctx: Ctx, [hash]) => {
    const mined = ctx.chain.minedTx(hash);
    if (!mined) return null;
    const receipts = ctx.chain.receipts(mined.block);
    return formatReceipt(mined.block, receipts, mined.index, firstLogIndexes(receipts)[mined.index]!, ctx.compat);
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

export const transactionMethods = [
  getTransactionByHash,
  getTransactionByBlockHashAndIndex,
  getTransactionByBlockNumberAndIndex,
  getTransactionReceipt,
  sendRawTransaction,
];
