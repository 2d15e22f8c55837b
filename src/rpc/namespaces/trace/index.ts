// The trace_ namespace (OpenEthereum's, as Anvil serves it): flat call traces of mined transactions, blocks, a
// filter over a block range, and calls, built by the Parity tracer on the debug_trace* replay.
import { LimitExceededError } from '../../../errors/index.ts';
import { bytesEqual, bytesToHex } from '../../../primitives/hex.ts';
import type { BlockRecord } from '../../../store/records.ts';
import type { ParityTrace } from '../../../tracing/types.ts';
import type { ParityParts, ParityReplay } from '../../../tracing/service.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { blockNumberOrTag, callRequest, hash32, optionalBlockSelector } from '../../params/index.ts';
import { traceFilter, traceTypes, type TraceFilter, type TraceType } from '../../params/parityTrace.ts';
import { formatLocatedTrace, formatParityTraces, formatStateDiff, topOutput } from './format.ts';
import { formatVmTrace } from './vmTraceFormat.ts';

/** What these methods use. */
type Ctx = Needs<'chain' | 'tracing'>;

/** trace_filter replays every block of its range that holds transactions; more than this is refused. */
export const MAX_FILTER_BLOCKS = 10_000n;

/** Every trace of a block with its location. */
function locatedBlock(block: BlockRecord, replays: ParityReplay[]): Array<{ t: ParityTrace; json: () => unknown }> {
  const out: Array<{ t: ParityTrace; json: () => unknown }> = [];
  replays.forEach(({ traces: list }, i) => {
    const at = {
      blockHash: block.hash,
      blockNumber: block.number,
      transactionHash: block.txHashes[i]!,
      transactionPosition: i,
    };
    for (const t of list) out.push({ t, json: () => formatLocatedTrace(t, at) });
  });
  return out;
}

/** A replay answer: the asked-for parts; stateDiff and vmTrace null and trace empty when not asked (as Anvil). */
function replayAnswer(types: TraceType[], r: ParityReplay, txHash?: Uint8Array): Record<string, unknown> {
  const o: Record<string, unknown> = {
    output: topOutput(r.traces),
    stateDiff: r.stateDiff ? formatStateDiff(r.stateDiff.pre, r.stateDiff.post) : null,
    trace: types.includes('trace') ? formatParityTraces(r.traces) : [],
    vmTrace: r.vmTrace ? formatVmTrace(r.vmTrace) : null,
  };
  if (txHash !== undefined) o.transactionHash = bytesToHex(txHash);
  return o;
}

/** The optional parts `types` asks for. */
function partsOf(types: TraceType[]): ParityParts {
  return { stateDiff: types.includes('stateDiff'), vmTrace: types.includes('vmTrace') };
}

/** True when `t` passes the filter's address lists: an empty list matches all; with both, `mode` combines them. */
function matches(t: ParityTrace, f: TraceFilter): boolean {
  const a = t.action;
  const from = a.kind === 'suicide' ? a.address : a.from;
  let to: Uint8Array | undefined;
  if (a.kind === 'call') to = a.to;
  else if (a.kind === 'suicide') to = a.refundAddress;
  else if (t.result?.kind === 'create') to = t.result.address;
  const fromOk = f.fromAddress.some((x) => bytesEqual(x, from));
  const toOk = to !== undefined && f.toAddress.some((x) => bytesEqual(x, to));
  if (f.fromAddress.length === 0) return f.toAddress.length === 0 || toOk;
  if (f.toAddress.length === 0) return fromOk;
  return f.mode === 'union' ? fromOk || toOk : fromOk && toOk;
}

/** Handler for trace_transaction: null for an unknown transaction. */
export const traceTransaction = defineMethod({
  name: 'trace_transaction',
  params: [hash32],
  handler: async (ctx: Ctx, [hash]) => {
    if (!ctx.chain.minedTx(hash)) return null;
    const { block, index, traces } = await ctx.tracing.parityTransaction(hash);
    const at = { blockHash: block.hash, blockNumber: block.number, transactionHash: hash, transactionPosition: index };
    return traces.map((t) => formatLocatedTrace(t, at));
  },
});

/** Handler for trace_block: null for a block not produced yet. */
export const traceBlock = defineMethod({
  name: 'trace_block',
  params: [blockNumberOrTag],
  handler: async (ctx: Ctx, [sel]) => {
    const block = ctx.chain.findBlock(sel);
    if (!block) return null;
    return locatedBlock(block, await ctx.tracing.parityBlock(block)).map((e) => e.json());
  },
});

/** Handler for trace_filter: the traces of a block range that match the addresses, after `after`, at most `count`. */
export const traceFilterMethod = defineMethod({
  name: 'trace_filter',
  params: [traceFilter],
  handler: async (ctx: Ctx, [f]) => {
    const from = ctx.chain.resolveBlock(f.fromBlock).number;
    const to = ctx.chain.resolveBlock(f.toBlock).number;
    if (from > to) return [];
    if (to - from >= MAX_FILTER_BLOCKS) {
      throw new LimitExceededError(`block range ${from}..${to} too large: at most ${MAX_FILTER_BLOCKS} blocks`);
    }
    const out: unknown[] = [];
    let skip = f.after;
    for (let n = from; n <= to; n++) {
      const block = ctx.chain.blockByNumber(n);
      if (!block || block.txs.length === 0) continue;
      for (const e of locatedBlock(block, await ctx.tracing.parityBlock(block))) {
        if (!matches(e.t, f)) continue;
        if (skip > 0) {
          skip--;
          continue;
        }
        if (f.count !== undefined && out.length >= f.count) return out;
        out.push(e.json());
      }
    }
    return out;
  },
});

/** Handler for trace_call: the call's traces on a block's state (eth_call's rules). */
export const traceCall = defineMethod({
  name: 'trace_call',
  params: [callRequest, traceTypes, optionalBlockSelector],
  handler: async (ctx: Ctx, [req, types, sel]) =>
    replayAnswer(types, await ctx.tracing.parityCall(req, ctx.chain.resolveBlock(sel), partsOf(types))),
});

/** Handler for trace_replayTransaction: a mined transaction replayed, answered as OpenEthereum does. */
export const replayTransaction = defineMethod({
  name: 'trace_replayTransaction',
  params: [hash32, traceTypes],
  handler: async (ctx: Ctx, [hash, types]) =>
    replayAnswer(types, await ctx.tracing.parityTransaction(hash, partsOf(types))),
});

/** Handler for trace_replayBlockTransactions: every transaction of a block replayed. */
export const replayBlockTransactions = defineMethod({
  name: 'trace_replayBlockTransactions',
  params: [blockNumberOrTag, traceTypes],
  handler: async (ctx: Ctx, [sel, types]) => {
    const block = ctx.chain.findBlock(sel);
    if (!block) return null;
    const replays = await ctx.tracing.parityBlock(block, partsOf(types));
    return replays.map((r, i) => replayAnswer(types, r, block.txHashes[i]));
  },
});

/** All trace_ methods. */
export const traceNamespace: RpcMethod<Ctx>[] = [
  traceTransaction,
  traceBlock,
  traceFilterMethod,
  traceCall,
  replayTransaction,
  replayBlockTransactions,
];
