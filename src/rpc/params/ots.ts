// Params of the ots_ namespace (Otterscan's): block numbers the UI sends as plain JSON numbers, and page sizes.
import type { BlockNumberOrTag } from './block.ts';
import { blockNumberOrTag } from './block.ts';
import { ParamError, codec, type Codec } from './codec.ts';
import { uintIndex } from './quantity.ts';

/** The largest page ots_getBlockTransactions and ots_searchTransactions* serve. */
export const MAX_OTS_PAGE = 1000;

/** A non-negative JSON integer, or a hex QUANTITY (Otterscan sends the former, other clients the latter). */
export const otsCount: Codec<number> = codec((raw) => {
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw) || raw < 0) throw new ParamError(`invalid number ${raw}`);
    return raw;
  }
  return uintIndex.decode(raw);
});

/** A page size: 1 to MAX_OTS_PAGE. */
export const otsPageSize: Codec<number> = codec((raw) => {
  const n = otsCount.decode(raw);
  if (n < 1 || n > MAX_OTS_PAGE) throw new ParamError(`invalid page size ${n}: want 1..${MAX_OTS_PAGE}`);
  return n;
});

/** A block as Otterscan names it: a JSON integer, or a hex number or tag as eth_ methods take it. */
export const otsBlock: Codec<BlockNumberOrTag> = codec((raw) => {
  if (typeof raw === 'number') return { kind: 'number', number: BigInt(otsCount.decode(raw)) };
  return blockNumberOrTag.decode(raw);
});
