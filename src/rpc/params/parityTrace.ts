// Params of the trace_ namespace: the trace types of trace_call / trace_replay*, and trace_filter's filter object
// (OpenEthereum's TraceFilter: fromBlock, toBlock, fromAddress, toAddress, after, count).
import type { BlockNumberOrTag } from './block.ts';
import { blockNumberOrTag } from './block.ts';
import { ParamError, codec, type Codec } from './codec.ts';
import { UnmarshalTypeError, address, array, isJsonObject, jsonKind, structField } from './data.ts';
import { uintIndex } from './quantity.ts';

/** The trace types a replay may ask for. */
export type TraceType = 'trace' | 'stateDiff' | 'vmTrace';

const KNOWN: ReadonlySet<string> = new Set(['trace', 'stateDiff', 'vmTrace']);

/** A list of trace types: each must be one of the three. */
export const traceTypes: Codec<TraceType[]> = codec((raw) => {
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), '[]TraceType');
  const out: TraceType[] = [];
  for (const t of raw) {
    if (typeof t !== 'string' || !KNOWN.has(t)) {
      throw new ParamError(`unknown trace type ${JSON.stringify(t)}; expected trace, stateDiff or vmTrace`);
    }
    out.push(t as TraceType);
  }
  return out;
});

/** trace_filter's criteria; empty address lists match every address. */
export interface TraceFilter {
  fromBlock: BlockNumberOrTag;
  toBlock: BlockNumberOrTag;
  fromAddress: Uint8Array[];
  toAddress: Uint8Array[];
  after: number;
  count?: number;
  /** With both address lists: a trace matching either (union, Anvil's and reth's default) or both. */
  mode: 'union' | 'intersection';
}

const filterMode: Codec<'union' | 'intersection'> = codec((raw) => {
  if (raw !== 'union' && raw !== 'intersection')
    throw new ParamError(`invalid mode ${JSON.stringify(raw)}: want union or intersection`);
  return raw;
});

/** A count as Anvil takes it: a JSON integer, or a hex QUANTITY as OpenEthereum's clients send it. */
const countNumber: Codec<number> = codec((raw) => {
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw) || raw < 0) throw new ParamError(`invalid count ${raw}`);
    return raw;
  }
  return uintIndex.decode(raw);
});

const LATEST: BlockNumberOrTag = { kind: 'tag', tag: 'latest' };
const addresses = array(address, { max: 1024 });

/** The filter object of trace_filter. */
export const traceFilter: Codec<TraceFilter> = codec((raw) => {
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'TraceFilter');
  return {
    fromBlock: structField(raw, 'fromBlock', blockNumberOrTag, 'TraceFilter') ?? LATEST,
    toBlock: structField(raw, 'toBlock', blockNumberOrTag, 'TraceFilter') ?? LATEST,
    fromAddress: structField(raw, 'fromAddress', addresses, 'TraceFilter') ?? [],
    toAddress: structField(raw, 'toAddress', addresses, 'TraceFilter') ?? [],
    after: structField(raw, 'after', countNumber, 'TraceFilter') ?? 0,
    count: structField(raw, 'count', countNumber, 'TraceFilter'),
    mode: structField(raw, 'mode', filterMode, 'TraceFilter') ?? 'union',
  };
});
