// The debug namespace: transaction, block and call tracing (public, bounded by the tracing service's limits).
import { NotFoundError } from '../../../errors/index.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { blockNumberOrTag, callRequest, hash32, optionalBlockSelector } from '../../params/index.ts';
import { traceCallConfig, traceConfig } from '../../params/traceConfig.ts';
import { formatBlockTrace, formatTrace } from './format.ts';
import { rawMethods } from './raw.ts';

/** What these methods use. */
type Ctx = Needs<'chain' | 'tracing' | 'pool'>;

/** Handler for debug_traceTransaction. */
export const traceTransaction = defineMethod({
  name: 'debug_traceTransaction',
  params: [hash32, traceConfig],
  handler: async (ctx: Ctx, [hash, cfg]) => formatTrace(await ctx.tracing.traceTransaction(hash, cfg)),
});

/** Handler for debug_traceBlockByNumber. */
export const traceBlockByNumber = defineMethod({
  name: 'debug_traceBlockByNumber',
  params: [blockNumberOrTag, traceConfig],
  handler: async (ctx: Ctx, [sel, cfg]) => {
    const block = ctx.chain.findBlock(sel);
    if (!block) throw new NotFoundError(sel.kind === 'number' ? `block #${sel.number} not found` : 'block not found');
    return formatBlockTrace(await ctx.tracing.traceBlock(block, cfg));
  },
});

/** Handler for debug_traceBlockByHash. */
export const traceBlockByHash = defineMethod({
  name: 'debug_traceBlockByHash',
  params: [hash32, traceConfig],
  handler: async (ctx: Ctx, [hash, cfg]) => {
    const block = ctx.chain.blockByHash(hash);
    if (!block) throw new NotFoundError(`block ${bytesToHex(hash)} not found`);
    return formatBlockTrace(await ctx.tracing.traceBlock(block, cfg));
  },
});

/** Handler for debug_traceCall: the call runs as eth_call would (with its state and block overrides), under the tracer. */
export const traceCall = defineMethod({
  name: 'debug_traceCall',
  params: [callRequest, optionalBlockSelector, traceCallConfig],
  handler: async (ctx: Ctx, [req, sel, cfg]) => {
    const { overrides, ...config } = cfg;
    return formatTrace(await ctx.tracing.traceCall(req, ctx.chain.resolveBlock(sel), config, overrides));
  },
});

/** All debug_ methods. */
export const debugNamespace: RpcMethod<Ctx>[] = [
  traceTransaction,
  traceBlockByNumber,
  traceBlockByHash,
  traceCall,
  ...rawMethods,
];
