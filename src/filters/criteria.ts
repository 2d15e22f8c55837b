// Log filter criteria after decoding, and the exact match rule every log query and stream applies.
import type { LogRecord } from '../store/records.ts';
import type { BlockSelector } from '../primitives/blockSelector.ts';

/** A block number or tag (the filter object has no hash form for its bounds). */
export type RangeBound = Exclude<BlockSelector, { kind: 'hash' }>;

/** Address and topic constraints of a log filter (geth's FilterQuery without the block range). */
export interface LogMatch {
  /** Logs must come from one of these contracts; empty = any contract. */
  addresses: Uint8Array[];
  /** Position i: null = any topic, else the log's topic i must be one of the listed values. */
  topics: Array<Uint8Array[] | null>;
}

/** A decoded eth_getLogs / eth_newFilter / logs-subscription filter object. */
export interface LogCriteria extends LogMatch {
  /** EIP-234: restricts to one block (then fromBlock/toBlock are absent). */
  blockHash?: Uint8Array;
  fromBlock?: RangeBound;
  toBlock?: RangeBound;
}

/** Geth's limits on a filter's shape. */
export const MAX_TOPICS = 4;
export const MAX_ADDRESSES = 1000;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when the log satisfies the address and positional topic constraints. */
export function matchesLog(m: LogMatch, log: LogRecord): boolean {
  if (m.addresses.length > 0 && !m.addresses.some((a) => sameBytes(a, log.address))) return false;
  // A constraint on position i needs the log to have a topic there, even when the constraint is a wildcard
  // followed by further constraints (geth: "len(filter.topics) > len(log.Topics)" drops the log).
  if (m.topics.length > log.topics.length) return false;
  for (let i = 0; i < m.topics.length; i++) {
    const alts = m.topics[i];
    if (alts === null || alts === undefined) continue;
    const t = log.topics[i]!;
    if (!alts.some((x) => sameBytes(x, t))) return false;
  }
  return true;
}

/** True when block `n` is inside the criteria's numeric bounds; tags do not bound new logs (geth's rule). */
export function inBounds(c: LogCriteria, n: bigint): boolean {
  if (c.fromBlock?.kind === 'number' && n < c.fromBlock.number) return false;
  if (c.toBlock?.kind === 'number' && n > c.toBlock.number) return false;
  return true;
}
