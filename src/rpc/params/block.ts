// Block parameter codecs: plain block number/tag, and the EIP-1898 selector (number, tag, or block hash).
// Error texts follow geth's rpc.BlockNumber and rpc.BlockNumberOrHash.
import type { BlockSelector, BlockTag } from '../../primitives/blockSelector.ts';
import { LATEST } from '../../primitives/blockSelector.ts';
import type { Codec } from './codec.ts';
import { ParamError, codec, optional } from './codec.ts';
import { UnmarshalTypeError, atField, bool, hash32, jsonKind } from './data.ts';
import { parseQuantity } from './quantity.ts';

/** A block selector without the hash form (tags and numbers only). */
export type BlockNumberOrTag = Exclude<BlockSelector, { kind: 'hash' }>;

const TAGS: readonly string[] = Object.freeze([
  'latest',
  'pending',
  'earliest',
  'safe',
  'finalized',
] satisfies BlockTag[]);
const MAX_INT64 = 0x7fffffffffffffffn;
/** One frozen selector per tag, shared by every request naming it (selectors are read, never changed: LATEST is). */
const TAG_SELECTORS: ReadonlyMap<string, BlockNumberOrTag> = new Map(
  TAGS.map((tag) => [tag, Object.freeze({ kind: 'tag', tag: tag as BlockTag }) as BlockNumberOrTag]),
);

/** Decodes a tag or a QUANTITY ≤ 2^63-1 from a string; hexutil errors are reported unwrapped, as geth does. */
function numberOrTag(s: string, tooHigh: string): BlockNumberOrTag {
  const tag = TAG_SELECTORS.get(s);
  if (tag !== undefined) return tag;
  let n: bigint;
  try {
    n = parseQuantity(s, 64, 'rpc.BlockNumber');
  } catch (e) {
    throw e instanceof UnmarshalTypeError ? new ParamError(e.value) : e;
  }
  if (n > MAX_INT64) throw new ParamError(tooHigh);
  return { kind: 'number', number: n };
}

/** A block tag (latest|pending|earliest|safe|finalized) or a QUANTITY ≤ 2^63-1. */
export const blockNumberOrTag: Codec<BlockNumberOrTag> = codec((raw) => {
  if (typeof raw !== 'string') throw new UnmarshalTypeError(jsonKind(raw), 'rpc.BlockNumber');
  return numberOrTag(raw, 'block number larger than int64');
});

/** Like blockNumberOrTag, defaulting to `latest` when absent or null. */
export const optionalBlockNumberOrTag: Codec<BlockNumberOrTag> = optional(
  blockNumberOrTag,
  () => LATEST as BlockNumberOrTag,
);

/** Decodes the EIP-1898 object form {blockNumber} | {blockHash, requireCanonical?}. */
function selectorObject(obj: Record<string, unknown>): BlockSelector {
  const get = (key: string): unknown => (Object.hasOwn(obj, key) && obj[key] !== null ? obj[key] : undefined);
  const rawNumber = get('blockNumber');
  const rawHash = get('blockHash');
  const rawCanonical = get('requireCanonical');
  const requireCanonical = rawCanonical === undefined ? false : decodeField(bool, rawCanonical, 'requireCanonical');
  if (rawNumber !== undefined && rawHash !== undefined) {
    throw new ParamError('cannot specify both BlockHash and BlockNumber, choose one or the other');
  }
  if (rawHash !== undefined) {
    return { kind: 'hash', hash: decodeField(hash32, rawHash, 'blockHash'), requireCanonical };
  }
  if (rawNumber !== undefined) {
    if (typeof rawNumber !== 'string') {
      throw new UnmarshalTypeError(jsonKind(rawNumber), 'rpc.BlockNumber', 'BlockNumberOrHash.blockNumber');
    }
    return numberOrTag(rawNumber, 'block number larger than int64');
  }
  throw new ParamError('invalid arguments; neither block nor hash specified');
}

/** Decodes one field of the object form, attributing errors to BlockNumberOrHash.<key>. */
function decodeField<T>(c: Codec<T>, raw: unknown, key: string): T {
  try {
    return c.decode(raw);
  } catch (e) {
    throw atField(e, `BlockNumberOrHash.${key}`);
  }
}

/** EIP-1898 selector: tag, QUANTITY ≤ 2^63-1, 32-byte hash string, {blockNumber} or {blockHash, requireCanonical?}. */
export const blockSelector: Codec<BlockSelector> = codec((raw) => {
  if (typeof raw === 'string') {
    if (raw.length === 66) return { kind: 'hash', hash: hash32.decode(raw), requireCanonical: false };
    return numberOrTag(raw, 'blocknumber too high');
  }
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    return selectorObject(raw as Record<string, unknown>);
  }
  throw new UnmarshalTypeError(jsonKind(raw), 'rpc.BlockNumberOrHash');
});

/** Like blockSelector, defaulting to `latest` when absent or null. */
export const optionalBlockSelector: Codec<BlockSelector> = optional(blockSelector, () => LATEST);
