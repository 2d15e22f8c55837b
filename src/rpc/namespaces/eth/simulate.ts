// eth_simulateV1: blocks of calls simulated on top of a block, returned as blocks with each call's outcome.
import type { SimBlockResult, SimCallResult } from '../../../app/evm/simulate/simulator.ts';
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { formatBlock, type Compat } from '../../format/block.ts';
import { formatLogEntry } from '../../format/log.ts';
import { defineMethod } from '../../method.ts';
import { optionalBlockSelector, simulateRequest } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'calls' | 'chain' | 'compat'>;

/** A simulated call's outcome with its logs placed in the simulated block. */
function formatCall(c: SimCallResult, b: SimBlockResult, index: number, firstLog: number): Record<string, unknown> {
  const block = b.block;
  const out: Record<string, unknown> = {
    returnData: bytesToHex(c.returnData),
    logs: c.logs.map((log, i) =>
      formatLogEntry({
        log,
        blockNumber: block.number,
        blockHash: block.hash,
        blockTimestamp: block.header.timestamp,
        txHash: block.txHashes[index]!,
        txIndex: index,
        logIndex: firstLog + i,
      }),
    ),
    gasUsed: toQuantity(c.gasUsed),
    maxUsedGas: toQuantity(c.maxUsedGas),
    status: toQuantity(c.status),
  };
  if (c.error) {
    out.error = {
      message: c.error.message,
      code: c.error.code,
      ...(c.error.data && { data: bytesToHex(c.error.data) }),
    };
  }
  return out;
}

/** One simulated block: the block object (hashes or full txs) plus `calls`. */
function formatSimBlock(b: SimBlockResult, full: boolean, compat: Compat): Record<string, unknown> {
  const out = formatBlock(b.block, full, compat);
  delete out.totalDifficulty;
  let firstLog = 0;
  out.calls = b.calls.map((c, i) => {
    const json = formatCall(c, b, i, firstLog);
    firstLog += c.logs.length;
    return json;
  });
  return out;
}

/** Handler for eth_simulateV1. */
export const simulateV1 = defineMethod({
  name: 'eth_simulateV1',
  params: [simulateRequest, optionalBlockSelector],
  handler: async (ctx: Ctx, [req, sel]) => {
    const base = ctx.chain.resolveBlock(sel);
    const results = await ctx.calls.simulate(
      { blocks: req.blockStateCalls, traceTransfers: req.traceTransfers, validation: req.validation },
      base,
    );
    return results.map((b) => formatSimBlock(b, req.returnFullTransactions, ctx.compat));
  },
});

export const simulateMethods = [simulateV1];
