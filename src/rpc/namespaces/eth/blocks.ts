// eth_ block methods. Unknown blocks answer null, as geth does.
import { toQuantity } from '../../../primitives/hex.ts';
import type { RpcContext } from '../../context.ts';
import { formatBlock } from '../../format/block.ts';
import { formatBlockReceipts } from '../../format/receipt.ts';
import { defineMethod } from '../../method.ts';
import {
  blockNumberOrTag,
  blockSelector,
  bool,
  hash32,
  optionalBlockNumberOrTag,
  uintIndex,
} from '../../params/index.ts';

/** Handler for eth_getBlockByNumber. */
export const getBlockByNumber = defineMethod({
  name: 'eth_getBlockByNumber',
  params: [blockNumberOrTag, bool],
  handler: (ctx: RpcContext, [sel, full]) => {
    const b = ctx.chain.findBlock(sel);
    return b ? formatBlock(b, full, ctx.compat) : null;
  },
});

/** Handler for eth_getBlockByHash. */
export const getBlockByHash = defineMethod({
  name: 'eth_getBlockByHash',
  params: [hash32, bool],
  handler: (ctx: RpcContext, [hash, full]) => {
    const b = ctx.chain.blockByHash(hash);
    return b ? formatBlock(b, full, ctx.compat) : null;
  },
});

/** Handler for eth_getBlockTransactionCountByNumber (a QUANTITY count). */
export const getBlockTransactionCountByNumber = defineMethod({
  name: 'eth_getBlockTransactionCountByNumber',
  params: [optionalBlockNumberOrTag],
  handler: (ctx: RpcContext, [sel]) => {
    const b = ctx.chain.findBlock(sel);
    return b ? toQuantity(b.txs.length) : null;
  },
});

/** Handler for eth_getBlockTransactionCountByHash. */
export const getBlockTransactionCountByHash = defineMethod({
  name: 'eth_getBlockTransactionCountByHash',
  params: [hash32],
  handler: (ctx: RpcContext, [hash]) => {
    const b = ctx.chain.blockByHash(hash);
    return b ? toQuantity(b.txs.length) : null;
  },
});

/** Handler for eth_getBlockReceipts (number, tag or EIP-1898 hash). */
export const getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  params: [blockSelector],
  handler: (ctx: RpcContext, [sel]) => {
    const b = ctx.chain.findBlock(sel);
    return b ? formatBlockReceipts(b, ctx.chain.receipts(b), ctx.compat) : null;
  },
});

/** Handler for eth_getUncleCountByBlockNumber: a PoS chain has no uncles. */
export const getUncleCountByBlockNumber = defineMethod({
  name: 'eth_getUncleCountByBlockNumber',
  params: [blockNumberOrTag],
  handler: (ctx: RpcContext, [sel]) => (ctx.chain.findBlock(sel) ? '0x0' : null),
});

/** Handler for eth_getUncleCountByBlockHash. */
export const getUncleCountByBlockHash = defineMethod({
  name: 'eth_getUncleCountByBlockHash',
  params: [hash32],
  handler: (ctx: RpcContext, [hash]) => (ctx.chain.blockByHash(hash) ? '0x0' : null),
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
