// eth_call and eth_estimateGas.
import { LATEST } from '../../../primitives/blockSelector.ts';
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { RpcContext } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { callRequest, jsonObject, optional, optionalBlockSelector } from '../../params/index.ts';
import { UnsupportedError } from '../../../errors/index.ts';

/** Handler for eth_call. State overrides (3rd param) are refused clearly rather than silently ignored. */
export const call = defineMethod({
  name: 'eth_call',
  params: [callRequest, optionalBlockSelector, optional(jsonObject)],
  handler: async (ctx: RpcContext, [req, sel, overrides]) => {
    if (overrides && Object.keys(overrides).length > 0) throw new UnsupportedError('state overrides are not supported');
    return bytesToHex(await ctx.calls.call(req, ctx.chain.resolveBlock(sel)));
  },
});

/** Handler for eth_estimateGas. */
export const estimateGas = defineMethod({
  name: 'eth_estimateGas',
  params: [callRequest, optionalBlockSelector],
  handler: async (ctx: RpcContext, [req, sel]) =>
    toQuantity(await ctx.calls.estimateGas(req, ctx.chain.resolveBlock(sel ?? LATEST))),
});

export const callMethods = [call, estimateGas];
