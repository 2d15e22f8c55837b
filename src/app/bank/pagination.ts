// The Cosmos SDK's pagination rules (types/query Paginate) over a list already sorted by key: limit 0 means 100
// and counts the total; key and offset together are refused; with a key the page starts at that key (inclusive)
// and no total is counted; next_key is the key of the first item after the page.
import { InvalidParamsError } from '../../errors/index.ts';
import type { PageRequest, PageResponse } from './proto.ts';

/** The SDK's default page size. */
export const DEFAULT_LIMIT = 100n;

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** One page of `items` (sorted ascending by `keyOf`) as the SDK's Paginate would return it. */
export function paginate<T>(
  items: T[],
  keyOf: (t: T) => Uint8Array,
  req: PageRequest,
): { page: T[]; res: PageResponse } {
  if (req.offset > 0n && req.key.length > 0) {
    throw new InvalidParamsError('paginate: invalid request, either offset or key is expected, got both');
  }
  let limit = req.limit;
  let countTotal = req.countTotal;
  if (limit === 0n) {
    limit = DEFAULT_LIMIT;
    countTotal = true;
  }
  const ordered = req.reverse ? [...items].reverse() : items;
  if (req.key.length > 0) {
    // Forward: items with key >= start; reverse: items with key <= start (the SDK's reverse iterator bound).
    const start = ordered.findIndex((t) =>
      req.reverse ? compareBytes(keyOf(t), req.key) <= 0 : compareBytes(keyOf(t), req.key) >= 0,
    );
    if (start < 0) return { page: [], res: { nextKey: undefined, total: 0n } };
    const end = BigInt(start) + limit;
    const page = ordered.slice(start, end > BigInt(ordered.length) ? ordered.length : Number(end));
    const next = end < BigInt(ordered.length) ? ordered[Number(end)] : undefined;
    return { page, res: { nextKey: next === undefined ? undefined : keyOf(next), total: 0n } };
  }
  const n = BigInt(ordered.length);
  const from = req.offset > n ? n : req.offset;
  const to = from + limit > n ? n : from + limit;
  const page = ordered.slice(Number(from), Number(to));
  const next = to < n ? ordered[Number(to)] : undefined;
  return { page, res: { nextKey: next === undefined ? undefined : keyOf(next), total: countTotal ? n : 0n } };
}
