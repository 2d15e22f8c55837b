// eth_ account state at any block: balance, nonce, code, storage.
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { RpcContext } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { address, blockSelector, storageSlot } from '../../params/index.ts';

/** Handler for eth_getBalance. */
export const getBalance = defineMethod({
  name: 'eth_getBalance',
  params: [address, blockSelector],
  handler: async (ctx: RpcContext, [addr, sel]) =>
    toQuantity((await ctx.chain.account(addr, ctx.chain.resolveBlock(sel))).balance),
});

/** Handler for eth_getTransactionCount ("pending" counts the account's pooled txs). */
export const getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  params: [address, blockSelector],
  handler: async (ctx: RpcContext, [addr, sel]) => {
    if (sel.kind === 'tag' && sel.tag === 'pending') return toQuantity(await ctx.txs.pendingNonce(addr));
    return toQuantity((await ctx.chain.account(addr, ctx.chain.resolveBlock(sel))).nonce);
  },
});

/** Handler for eth_getCode. */
export const getCode = defineMethod({
  name: 'eth_getCode',
  params: [address, blockSelector],
  handler: async (ctx: RpcContext, [addr, sel]) => bytesToHex(await ctx.chain.code(addr, ctx.chain.resolveBlock(sel))),
});

/** Handler for eth_getStorageAt. */
export const getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  params: [address, storageSlot, blockSelector],
  handler: async (ctx: RpcContext, [addr, slot, sel]) =>
    bytesToHex(await ctx.chain.storage(addr, slot, ctx.chain.resolveBlock(sel))),
});

export const stateMethods = [getBalance, getTransactionCount, getCode, getStorageAt];
