// eth_ account state at any block: balance, nonce, code, storage.
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { AccountView } from '../../../app/query.ts';
import type { RpcContext } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { address, blockSelector, storageSlot } from '../../params/index.ts';

/** Handler for eth_getBalance. */
export const getBalance = defineMethod({
  name: 'eth_getBalance',
  params: [address, blockSelector],
  handler: (ctx: RpcContext, [addr, sel]) => {
    // Synchronous when the head cache has the account: no promise on the hot path.
    const acc = ctx.chain.account(addr, ctx.chain.resolveBlock(sel));
    return acc instanceof Promise ? acc.then(balanceOf) : balanceOf(acc);
  },
});

function balanceOf(acc: AccountView): string {
  return toQuantity(acc.balance);
}

function nonceOf(acc: AccountView): string {
  return toQuantity(acc.nonce);
}

/** Handler for eth_getTransactionCount ("pending" counts the account's pooled txs). */
export const getTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  params: [address, blockSelector],
  handler: (ctx: RpcContext, [addr, sel]) => {
    if (sel.kind === 'tag' && sel.tag === 'pending') return ctx.txs.pendingNonce(addr).then(toQuantity);
    const acc = ctx.chain.account(addr, ctx.chain.resolveBlock(sel));
    return acc instanceof Promise ? acc.then(nonceOf) : nonceOf(acc);
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
  handler: async (ctx: RpcContext, [addr, slot, sel]) => bytesToHex(await ctx.chain.storage(addr, slot, ctx.chain.resolveBlock(sel))),
});

export const stateMethods = [getBalance, getTransactionCount, getCode, getStorageAt];
