// debug_getRaw*: the consensus encodings of what Kestrel stores (header, block, receipts, transaction), and
// debug_getBadBlocks, which is always empty: a block is only ever stored after this node executed it, so no block
// is ever rejected after import.
import { encodeConsensusReceipt } from '../../../app/block.ts';
import { encodeBlock } from '../../../store/encoding.ts';
import type { BlockRecord } from '../../../store/records.ts';
import { NotFoundError } from '../../../errors/index.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { BlockSelector } from '../../../primitives/blockSelector.ts';
import type { Needs } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { blockSelector, hash32 } from '../../params/index.ts';
import { encodeTx } from '../../../primitives/tx/encode.ts';

/** What these methods use. */
type Ctx = Needs<'chain' | 'pool'>;

/** The block a raw method names; unknown blocks are errors, worded as geth words them. */
function blockOf(ctx: Ctx, sel: BlockSelector, what: string): BlockRecord {
  const b = ctx.chain.findBlock(sel);
  if (b) return b;
  if (sel.kind === 'hash') throw new NotFoundError(`${what} ${bytesToHex(sel.hash)} not found`);
  if (sel.kind === 'number') throw new NotFoundError(`${what} #${sel.number} not found`);
  throw new NotFoundError(`${what} not found`);
}

/** Handler for debug_getRawHeader: RLP of the header, whose keccak256 is the block hash. */
export const getRawHeader = defineMethod({
  name: 'debug_getRawHeader',
  params: [blockSelector],
  handler: (ctx: Ctx, [sel]) => bytesToHex(blockOf(ctx, sel, 'header').header.serialize()),
});

/** Handler for debug_getRawBlock. */
export const getRawBlock = defineMethod({
  name: 'debug_getRawBlock',
  params: [blockSelector],
  handler: (ctx: Ctx, [sel]) => bytesToHex(encodeBlock(blockOf(ctx, sel, 'block'))),
});

/** Handler for debug_getRawReceipts: each receipt's consensus encoding, in block order. */
export const getRawReceipts = defineMethod({
  name: 'debug_getRawReceipts',
  params: [blockSelector],
  handler: (ctx: Ctx, [sel]) =>
    ctx.chain.receipts(blockOf(ctx, sel, 'block')).map((r) => bytesToHex(encodeConsensusReceipt(r))),
});

/** Handler for debug_getRawTransaction: the signed encoding of a mined or pooled tx; null when unknown. */
export const getRawTransaction = defineMethod({
  name: 'debug_getRawTransaction',
  params: [hash32],
  handler: (ctx: Ctx, [hash]) => {
    const mined = ctx.chain.minedTx(hash);
    if (mined) return bytesToHex(encodeTx(mined.block.txs[mined.index]!));
    const pooled = ctx.pool.get(hash);
    return pooled ? bytesToHex(pooled.encoded ?? encodeTx(pooled.tx)) : null;
  },
});

/** Handler for debug_getBadBlocks: Kestrel executes every block before storing it, so none was ever refused. */
export const getBadBlocks = defineMethod({
  name: 'debug_getBadBlocks',
  params: [],
  handler: () => [],
});

export const rawMethods = [getRawHeader, getRawBlock, getRawReceipts, getRawTransaction, getBadBlocks];
