// eth_ block methods. Unknown blocks answer null, as geth does.
import { quantity } from '../../../app/fork/history.ts';
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { formatBlock } from '../../format/block.ts';
import { formatBlockReceipts } from '../../format/receipt.ts';
import { upstreamHash, upstreamHeight } from './forkHistory.ts';
import { defineMethod } from '../../method.ts';
import {
  blockNumberOrTag,
  blockSelector,
  bool,
  hash32,
  optionalBlockNumberOrTag,
  uintIndex,
} from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'app' | 'calls' | 'chain' | 'compat' | 'pool'>;

/**
 * The pending block: the block the pool's executable txs would make next, executed on a copy of the head state,
 * so gasUsed and the roots are real. Its hash is that of the header as sealed now (as Anvil shows it; geth nulls
 * hash, nonce and miner, which the execution-apis block schema does not allow).
 */
async function pendingBlock(ctx: Ctx, full: boolean): Promise<Record<string, unknown>> {
  const gasLimit = ctx.app.head.header.gasLimit;
  const txs = ctx.pool.executable(gasLimit, { baseFee: ctx.app.nextBaseFee(), minGasPrice: ctx.app.minGasPrice });
  const { block } = await ctx.app.previewBlock(txs, BigInt(Math.floor(Date.now() / 1000)));
  return formatBlock(block, full, ctx.compat);
}

/** Handler for eth_getBlockByNumber ("pending": the block the next txs would make). */
export const getBlockByNumber = defineMethod({
  name: 'eth_getBlockByNumber',
  params: [blockNumberOrTag, bool],
  handler: (ctx: Ctx, [sel, full]) => {
    if (sel.kind === 'tag' && sel.tag === 'pending') return pendingBlock(ctx, full);
    const up = upstreamHeight(ctx, sel);
    if (up) return up.history.blockByNumber(up.number, full);
    const b = ctx.chain.findBlock(sel);
    return b ? formatBlock(b, full, ctx.compat) : null;
  },
});

/** Handler for eth_getBlockByHash. */
export const getBlockByHash = defineMethod({
  name: 'eth_getBlockByHash',
  params: [hash32, bool],
  handler: (ctx: Ctx, [hash, full]) => {
    const up = upstreamHash(ctx, hash);
    if (up) return up.blockByHash(bytesToHex(hash), full);
    const b = ctx.chain.blockByHash(hash);
    return b ? formatBlock(b, full, ctx.compat) : null;
  },
});

/** Handler for eth_getBlockTransactionCountByNumber (a QUANTITY count). */
export const getBlockTransactionCountByNumber = defineMethod({
  name: 'eth_getBlockTransactionCountByNumber',
  params: [optionalBlockNumberOrTag],
  handler: (ctx: Ctx, [sel]) => {
    const up = upstreamHeight(ctx, sel);
    if (up) return up.history.call('eth_getBlockTransactionCountByNumber', [quantity(up.number)]);
    const b = ctx.chain.findBlock(sel);
    return b ? toQuantity(b.txs.length) : null;
  },
});

/** Handler for eth_getBlockTransactionCountByHash. */
export const getBlockTransactionCountByHash = defineMethod({
  name: 'eth_getBlockTransactionCountByHash',
  params: [hash32],
  handler: async (ctx: Ctx, [hash]) => {
    const up = upstreamHash(ctx, hash);
    if (up) {
      const b = (await up.blockByHash(bytesToHex(hash), false)) as { transactions?: unknown[] } | null;
      return b ? toQuantity(b.transactions?.length ?? 0) : null;
    }
    const b = ctx.chain.blockByHash(hash);
    return b ? toQuantity(b.txs.length) : null;
  },
});

/** Handler for eth_getBlockReceipts (number, tag or EIP-1898 hash). */
export const getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  params: [blockSelector],
  handler: async (ctx: Ctx, [sel]) => {
    const up = upstreamHeight(ctx, sel);
    if (up) return up.history.call('eth_getBlockReceipts', [quantity(up.number)]);
    if (sel.kind === 'hash') {
      const h = upstreamHash(ctx, sel.hash);
      const b = h ? ((await h.blockByHash(bytesToHex(sel.hash), false)) as { number: string } | null) : undefined;
      if (h) return b ? h.call('eth_getBlockReceipts', [b.number]) : null;
    }
    const b = ctx.chain.findBlock(sel);
    return b ? formatBlockReceipts(b, ctx.chain.receipts(b), ctx.compat) : null;
  },
});

/** Handler for eth_getUncleCountByBlockNumber: a PoS chain has no uncles. */
export const getUncleCountByBlockNumber = defineMethod({
  name: 'eth_getUncleCountByBlockNumber',
  params: [blockNumberOrTag],
  handler: (ctx: Ctx, [sel]) => {
    const up = upstreamHeight(ctx, sel);
    if (up) return up.history.call('eth_getUncleCountByBlockNumber', [quantity(up.number)]);
    return ctx.chain.findBlock(sel) ? '0x0' : null;
  },
});

/** Handler for eth_getUncleCountByBlockHash. */
export const getUncleCountByBlockHash = defineMethod({
  name: 'eth_getUncleCountByBlockHash',
  params: [hash32],
  handler: (ctx: Ctx, [hash]) => (ctx.chain.blockByHash(hash) ? '0x0' : null),
});

/** Handler for eth_getUncleByBlockNumberAndIndex: always null. */
export const getUncleByBlockNumberAndIndex = defineMethod({
  name: 'eth_getUncleByBlockNumberAndIndex',
  params: [blockNumberOrTag, uintIndex],
  handler: () => null,
});

/** Handler for eth_getUncleByBlockHashAndIndex: always null. */
export const getUncleByBlockHashAndIndex = defineMethod({
  name: 'eth_getUncleByBlockHashAndIndex',
  params: [hash32, uintIndex],
  handler: () => null,
});

export const blockMethods = [
  getBlockByNumber,
  getBlockByHash,
  getBlockTransactionCountByNumber,
  getBlockTransactionCountByHash,
  getBlockReceipts,
  getUncleCountByBlockNumber,
  getUncleCountByBlockHash,
  getUncleByBlockNumberAndIndex,
  getUncleByBlockHashAndIndex,
];
