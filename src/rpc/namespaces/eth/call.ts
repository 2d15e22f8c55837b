// eth_call and eth_estimateGas, with geth's state overrides (3rd param) and block overrides (4th param).
import { engineReady } from '../../../evm/index.ts';
import type { CallOverrides } from '../../../primitives/overrides.ts';
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { upstreamCall } from './forkCall.ts';
import { blockOverrides, callRequest, optional, optionalBlockSelector, stateOverrides } from '../../params/index.ts';
import type { BlockOverrides, StateOverrides } from '../../../primitives/overrides.ts';

/** What these methods use. */
type Ctx = Needs<'calls' | 'chain'>;

/** The overrides of a request, or undefined when it has none. */
export function overridesOf(
  state: StateOverrides | undefined,
  block: BlockOverrides | undefined,
): CallOverrides | undefined {
  if (state === undefined && block === undefined) return undefined;
  return { ...(state !== undefined && { state }), ...(block !== undefined && { block }) };
}

/** Handler for eth_call. */
export const call = defineMethod({
  name: 'eth_call',
  params: [callRequest, optionalBlockSelector, optional(stateOverrides), optional(blockOverrides)],
  hexResult: true,
  // Synchronous once the engine has loaded (it is): no promise on the hot path. A forked chain's calls may wait
  // for its upstream.
  handler: (ctx: Ctx, [req, sel, state, block]) =>
    engineReady() && ctx.calls.upstream === undefined
      ? bytesToHex(ctx.calls.callSync(req, ctx.chain.resolveBlock(sel), overridesOf(state, block)))
      : (upstreamCall(ctx, 'eth_call', req, sel, state, block) ??
        ctx.calls.call(req, ctx.chain.resolveBlock(sel), overridesOf(state, block)).then(bytesToHex)),
});

/** Handler for eth_estimateGas. */
export const estimateGas = defineMethod({
  name: 'eth_estimateGas',
  params: [callRequest, optionalBlockSelector, optional(stateOverrides), optional(blockOverrides)],
  hexResult: true,
  handler: (ctx: Ctx, [req, sel, state, block]) =>
    engineReady() && ctx.calls.upstream === undefined
      ? toQuantity(ctx.calls.estimateGasSync(req, ctx.chain.resolveBlock(sel), overridesOf(state, block)))
      : (upstreamCall(ctx, 'eth_estimateGas', req, sel, state, block) ??
        ctx.calls.estimateGas(req, ctx.chain.resolveBlock(sel), overridesOf(state, block)).then(toQuantity)),
});

/** Handler for eth_createAccessList: {accessList, gasUsed} plus `error` when the call fails. */
export const createAccessList = defineMethod({
  name: 'eth_createAccessList',
  params: [callRequest, optionalBlockSelector, optional(stateOverrides)],
  handler: async (ctx: Ctx, [req, sel, state]) => {
    const proxied = upstreamCall(ctx, 'eth_createAccessList', req, sel, state);
    if (proxied !== undefined) return proxied;
    const r = await ctx.calls.createAccessList(req, ctx.chain.resolveBlock(sel), overridesOf(state, undefined));
    return {
      accessList: r.accessList.map((a) => ({
        address: bytesToHex(a.address),
        storageKeys: a.storageKeys.map((k) => bytesToHex(k)),
      })),
      ...(r.error !== undefined && { error: r.error }),
      gasUsed: toQuantity(r.gasUsed),
    };
  },
});

export const callMethods = [call, estimateGas, createAccessList];
