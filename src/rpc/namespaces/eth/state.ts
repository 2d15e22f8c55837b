// eth_ account state at any block: balance, nonce, code, storage. The block parameter defaults to `latest`.
import { bigintToBytes, bytesToBigint, bytesToHex, padLeft, toQuantity } from '../../../primitives/hex.ts';
import type { ForkState } from '../../../app/fork/forkState.ts';
import { quantity } from '../../../app/fork/history.ts';
import type { StateReader } from '../../../evm/types.ts';
import type { BlockSelector } from '../../../primitives/blockSelector.ts';
import type { AccountView } from '../../../app/query.ts';
import { belowFork } from './forkHistory.ts';
import type { Needs } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { address, optionalBlockSelector, storageRequests, storageSlot } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'chain' | 'txs' | 'calls'>;

/** Handler for eth_getBalance. */
export const getBalance = defineMethod({
  name: 'eth_getBalance',
  params: [address, optionalBlockSelector],
  hexResult: true,
  handler: (ctx: Ctx, [addr, sel]) => {
    const up = ctx.calls.upstream;
    if (up) {
      const n = belowFork(up, sel);
      if (n !== undefined) return up.history.call('eth_getBalance', [bytesToHex(addr), quantity(n)]);
      return forked(ctx, up, sel, (r) => toQuantity(r.account(bytesToBigint(addr))?.balance ?? 0n));
    }
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
  params: [address, optionalBlockSelector],
  hexResult: true,
  handler: (ctx: Ctx, [addr, sel]) => {
    if (sel.kind === 'tag' && sel.tag === 'pending') return ctx.txs.pendingNonce(addr).then(toQuantity);
    const up = ctx.calls.upstream;
    if (up) {
      const n = belowFork(up, sel);
      if (n !== undefined) return up.history.call('eth_getTransactionCount', [bytesToHex(addr), quantity(n)]);
      return forked(ctx, up, sel, (r) => toQuantity(r.account(bytesToBigint(addr))?.nonce ?? 0n));
    }
    const acc = ctx.chain.account(addr, ctx.chain.resolveBlock(sel));
    return acc instanceof Promise ? acc.then(nonceOf) : nonceOf(acc);
  },
});

/** Handler for eth_getCode. */
export const getCode = defineMethod({
  name: 'eth_getCode',
  params: [address, optionalBlockSelector],
  hexResult: true,
  handler: (ctx: Ctx, [addr, sel]) => {
    const up = ctx.calls.upstream;
    if (!up) return hexOf(ctx.chain.code(addr, ctx.chain.resolveBlock(sel)));
    const n = belowFork(up, sel);
    if (n !== undefined) return up.history.call('eth_getCode', [bytesToHex(addr), quantity(n)]);
    return forked(ctx, up, sel, (r) => {
      const acc = r.account(bytesToBigint(addr));
      return bytesToHex(acc ? r.code(acc.codeHash) : new Uint8Array(0));
    });
  },
});

/** Handler for eth_getStorageAt. */
export const getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  params: [address, storageSlot, optionalBlockSelector],
  hexResult: true,
  handler: (ctx: Ctx, [addr, slot, sel]) => {
    const up = ctx.calls.upstream;
    if (!up) return hexOf(ctx.chain.storage(addr, slot, ctx.chain.resolveBlock(sel)));
    const n = belowFork(up, sel);
    if (n !== undefined) return up.history.call('eth_getStorageAt', [bytesToHex(addr), bytesToHex(slot), quantity(n)]);
    return forked(ctx, up, sel, (r) =>
      bytesToHex(padLeft(bigintToBytes(r.storage(bytesToBigint(addr), bytesToBigint(slot))), 32)),
    );
  },
});

/** A forked chain's read at the selected block: what the local chain lacks comes from the upstream. */
function forked<T>(ctx: Ctx, up: ForkState, sel: BlockSelector, read: (r: StateReader) => T): Promise<T> {
  return ctx.calls.readForked(up, ctx.chain.resolveBlock(sel), read);
}

/** Hex of bytes read now or later: a head-cache hit answers without a promise. */
function hexOf(b: Uint8Array | Promise<Uint8Array>): string | Promise<string> {
  return b instanceof Promise ? b.then(bytesToHex) : bytesToHex(b);
}

/** Handler for eth_getStorageValues: many slots of many accounts at one block, as 32-byte words. */
export const getStorageValues = defineMethod({
  name: 'eth_getStorageValues',
  params: [storageRequests, optionalBlockSelector],
  handler: async (ctx: Ctx, [requests, sel]) => {
    const block = ctx.chain.resolveBlock(sel);
    const out: Record<string, string[]> = {};
    for (const r of requests) {
      const values: string[] = [];
      for (const slot of r.slots) values.push(bytesToHex(await ctx.chain.storage(r.address, slot, block)));
      out[bytesToHex(r.address)] = values;
    }
    return out;
  },
});

export const stateMethods = [getBalance, getTransactionCount, getCode, getStorageAt, getStorageValues];
