// The ots_ namespace (Otterscan's API, level 8, as Anvil serves it) so the Otterscan UI can browse a Kestrel chain.
// Traces come from the Parity tracer on the debug_trace* replay; the address searches replay the blocks they walk,
// while the sender/nonce and contract-creator lookups binary-search the state (nonce, code) and replay one block.
import { NotFoundError } from '../../../errors/index.ts';
import { bytesEqual, bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { BlockRecord } from '../../../store/records.ts';
import { formatBlock } from '../../format/block.ts';
import { firstLogIndexes, formatReceipt } from '../../format/receipt.ts';
import { formatTx } from '../../format/tx.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { address, hash32, optionalBlockSelector } from '../../params/index.ts';
import { otsBlock, otsCount, otsPageSize } from '../../params/ots.ts';
import { topOutput } from '../trace/format.ts';
import { callEntries, internalOperations, touches } from './format.ts';

/** What these methods use. */
type Ctx = Needs<'chain' | 'compat' | 'tracing'>;
type Json = Record<string, unknown>;

/** The Otterscan API level Anvil and Erigon report (the UI refuses a node below its minimum). */
export const OTS_API_LEVEL = 8;

function blockOrThrow(b: BlockRecord | undefined): BlockRecord {
  if (!b) throw new NotFoundError('block not found');
  return b;
}

/** A block as Otterscan's block pages take it: the header, the given transactions and their count. */
function otsBlockJson(ctx: Ctx, b: BlockRecord, txs?: Json[]): Json {
  const out = formatBlock(b, false, ctx.compat);
  delete out.transactions;
  const withdrawals = out.withdrawals;
  delete out.withdrawals;
  if (txs !== undefined) out.transactions = txs;
  if (withdrawals !== undefined) out.withdrawals = withdrawals;
  out.transactionCount = txs?.length ?? b.txs.length;
  return out;
}

function minedTxJson(b: BlockRecord, i: number): Json {
  const placement = { blockHash: b.hash, blockNumber: b.number, index: i, timestamp: b.header.timestamp };
  return formatTx(b.txs[i]!, b.senders[i]!, b.txHashes[i]!, { ...placement, baseFee: b.header.baseFeePerGas });
}

/** A block page's transaction: its input cut to the 4-byte selector (the UI shows only the method; Erigon and Anvil
 * cut it so a page of large deployments stays small). */
function pageTxJson(b: BlockRecord, i: number): Json {
  const tx = minedTxJson(b, i);
  if (typeof tx.input === 'string') tx.input = tx.input.slice(0, 10);
  return tx;
}

/** Receipts as Otterscan takes them: eth_getTransactionReceipt's object plus the block's timestamp. */
function otsReceipts(ctx: Ctx, b: BlockRecord, indexes: number[]): Json[] {
  const receipts = ctx.chain.receipts(b);
  const first = firstLogIndexes(receipts);
  const timestamp = toQuantity(b.header.timestamp);
  return indexes.map((i) => ({ ...formatReceipt(b, receipts, i, first[i]!, ctx.compat), timestamp }));
}

/** ots_getBlockDetails*: the block without its transactions, issuance (none: no block reward) and the fees paid. */
function blockDetails(ctx: Ctx, b: BlockRecord): Json {
  let fees = 0n;
  for (const r of ctx.chain.receipts(b)) fees += r.gasUsed * r.effectiveGasPrice;
  return {
    block: otsBlockJson(ctx, b),
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: toQuantity(fees),
  };
}

/** The indexes of `b`'s transactions whose traces touch `addr`, each once, in trace order (or reversed). */
async function touching(ctx: Ctx, b: BlockRecord, addr: Uint8Array, reverse: boolean): Promise<number[]> {
  const found: number[] = [];
  (await ctx.tracing.parityBlock(b)).forEach(({ traces }, i) => {
    if (traces.some((t) => touches(t, addr))) found.push(i);
  });
  return reverse ? found.reverse() : found;
}

/** The search answer: transactions and receipts, newest first, and whether the page is the newest or oldest. */
function searchAnswer(ctx: Ctx, hits: Array<[BlockRecord, number]>, firstPage: boolean, lastPage: boolean): Json {
  return {
    txs: hits.map(([b, i]) => minedTxJson(b, i)),
    receipts: hits.map(([b, i]) => otsReceipts(ctx, b, [i])[0]),
    firstPage,
    lastPage,
  };
}

/** The lowest height in [lo, hi] where `pred` holds, given it holds at hi and never turns false again once true. */
function firstHeight(lo: bigint, hi: bigint, pred: (n: bigint) => boolean): bigint {
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (pred(mid)) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}

/** Handler for ots_getApiLevel. */
export const getApiLevel = defineMethod({
  name: 'ots_getApiLevel',
  params: [],
  handler: () => OTS_API_LEVEL,
});

/** Handler for ots_hasCode: whether an address holds code at a block. */
export const hasCode = defineMethod({
  name: 'ots_hasCode',
  params: [address, optionalBlockSelector],
  handler: (ctx: Ctx, [addr, sel]) => ctx.chain.code(addr, ctx.chain.resolveBlock(sel)).length > 0,
});

/** Handler for ots_getInternalOperations: a mined transaction's value transfers, creations and selfdestructs. */
export const getInternalOperations = defineMethod({
  name: 'ots_getInternalOperations',
  params: [hash32],
  handler: async (ctx: Ctx, [hash]) => internalOperations((await ctx.tracing.parityTransaction(hash)).traces),
});

/** Handler for ots_traceTransaction: a mined transaction's call frames with their depth. */
export const traceTransaction = defineMethod({
  name: 'ots_traceTransaction',
  params: [hash32],
  handler: async (ctx: Ctx, [hash]) => callEntries((await ctx.tracing.parityTransaction(hash)).traces),
});

/** Handler for ots_getTransactionError: a failed transaction's revert data; "0x" for success or an unknown hash. */
export const getTransactionError = defineMethod({
  name: 'ots_getTransactionError',
  params: [hash32],
  handler: async (ctx: Ctx, [hash]) => {
    const mined = ctx.chain.minedTx(hash);
    if (!mined || ctx.chain.receipts(mined.block)[mined.index]!.status === 1) return '0x';
    const { traces } = await ctx.tracing.parityTransaction(hash);
    return traces[0]?.result === undefined ? '0x' : topOutput(traces);
  },
});

/** Handler for ots_getBlockDetails. */
export const getBlockDetails = defineMethod({
  name: 'ots_getBlockDetails',
  params: [otsBlock],
  handler: (ctx: Ctx, [sel]) => blockDetails(ctx, blockOrThrow(ctx.chain.findBlock(sel))),
});

/** Handler for ots_getBlockDetailsByHash. */
export const getBlockDetailsByHash = defineMethod({
  name: 'ots_getBlockDetailsByHash',
  params: [hash32],
  handler: (ctx: Ctx, [hash]) => blockDetails(ctx, blockOrThrow(ctx.chain.blockByHash(hash))),
});

/** Handler for ots_getBlockTransactions: one page of a block's transactions with their receipts. */
export const getBlockTransactions = defineMethod({
  name: 'ots_getBlockTransactions',
  params: [otsBlock, otsCount, otsPageSize],
  handler: (ctx: Ctx, [sel, page, size]) => {
    const b = blockOrThrow(ctx.chain.findBlock(sel));
    const indexes: number[] = [];
    for (let i = page * size; i < Math.min(b.txs.length, (page + 1) * size); i++) indexes.push(i);
    return {
      fullblock: otsBlockJson(
        ctx,
        b,
        indexes.map((i) => pageTxJson(b, i)),
      ),
      receipts: otsReceipts(ctx, b, indexes),
    };
  },
});

/** Handler for ots_searchTransactionsBefore: transactions touching an address below a block (0: the head), newest first. */
export const searchTransactionsBefore = defineMethod({
  name: 'ots_searchTransactionsBefore',
  params: [address, otsCount, otsPageSize],
  handler: async (ctx: Ctx, [addr, before, size]) => {
    const best = ctx.chain.head().number;
    let from = before === 0 ? best : BigInt(before) - 1n;
    if (from > best) from = best;
    const hits: Array<[BlockRecord, number]> = [];
    let lastPage = false;
    // Whole blocks are taken, so a page may run past `size` (as Anvil's does); a full page stops at the next block
    // with transactions, so that empty blocks beyond the last match still let the page be the last.
    for (let n = from; n >= 1n; n--) {
      const b = ctx.chain.blockByNumber(n);
      if (b && b.txs.length > 0) {
        if (hits.length >= size) break;
        for (const i of await touching(ctx, b, addr, true)) hits.push([b, i]);
      }
      if (n === 1n) lastPage = true;
    }
    return searchAnswer(ctx, hits, from >= best, lastPage);
  },
});

/** Handler for ots_searchTransactionsAfter: transactions touching an address above a block, newest first. */
export const searchTransactionsAfter = defineMethod({
  name: 'ots_searchTransactionsAfter',
  params: [address, otsCount, otsPageSize],
  handler: async (ctx: Ctx, [addr, after, size]) => {
    const best = ctx.chain.head().number;
    const start = BigInt(after) + 1n;
    const hits: Array<[BlockRecord, number]> = [];
    let firstPage = start > best;
    for (let n = start; n <= best; n++) {
      const b = ctx.chain.blockByNumber(n);
      if (b && b.txs.length > 0) {
        if (hits.length >= size) break;
        for (const i of await touching(ctx, b, addr, false)) hits.push([b, i]);
      }
      if (n === best) firstPage = true;
    }
    return searchAnswer(ctx, hits.reverse(), firstPage, after === 0);
  },
});

/** Handler for ots_getTransactionBySenderAndNonce: the hash of the sender's transaction with that nonce, or null. */
export const getTransactionBySenderAndNonce = defineMethod({
  name: 'ots_getTransactionBySenderAndNonce',
  params: [address, otsCount],
  handler: (ctx: Ctx, [addr, nonce]) => {
    const head = ctx.chain.head();
    const n = BigInt(nonce);
    if (ctx.chain.account(addr, head).nonce <= n) return null;
    // The sender's nonce only grows: the first block after which it exceeds `nonce` holds the transaction.
    const height = firstHeight(
      0n,
      head.number,
      (h) => ctx.chain.account(addr, blockOrThrow(ctx.chain.blockByNumber(h))).nonce > n,
    );
    const b = blockOrThrow(ctx.chain.blockByNumber(height));
    const i = b.txs.findIndex((tx, j) => tx.nonce === n && bytesEqual(b.senders[j]!, addr));
    return i < 0 ? null : bytesToHex(b.txHashes[i]!);
  },
});

/** Handler for ots_getContractCreator: the transaction and the account (EOA or contract) that created a contract. */
export const getContractCreator = defineMethod({
  name: 'ots_getContractCreator',
  params: [address],
  handler: async (ctx: Ctx, [addr]) => {
    const head = ctx.chain.head();
    if (ctx.chain.code(addr, head).length === 0) return null;
    // Code, once deployed, stays (Cancun's SELFDESTRUCT keeps it): the first block with code is the creating one.
    const hasCodeAt = (h: bigint) => ctx.chain.code(addr, blockOrThrow(ctx.chain.blockByNumber(h))).length > 0;
    const b = blockOrThrow(ctx.chain.blockByNumber(firstHeight(0n, head.number, hasCodeAt)));
    const traces = b.txs.length === 0 ? [] : await ctx.tracing.parityBlock(b);
    for (let i = 0; i < traces.length; i++) {
      for (const t of traces[i]!.traces) {
        if (t.action.kind === 'create' && t.result?.kind === 'create' && bytesEqual(t.result.address, addr)) {
          return { hash: bytesToHex(b.txHashes[i]!), creator: bytesToHex(t.action.from) };
        }
      }
    }
    return null;
  },
});

/** All ots_ methods. */
export const otsNamespace: RpcMethod<Ctx>[] = [
  getApiLevel,
  hasCode,
  getInternalOperations,
  traceTransaction,
  getTransactionError,
  getBlockDetails,
  getBlockDetailsByHash,
  getBlockTransactions,
  searchTransactionsBefore,
  searchTransactionsAfter,
  getTransactionBySenderAndNonce,
  getContractCreator,
];
