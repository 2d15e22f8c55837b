// Recursive Length Prefix encoding (Ethereum Yellow Paper, appendix B): encoding in two passes (sizes, then one
// write into a single buffer) and a strict decoder that rejects every non-canonical form, as geth's does.

/** An RLP item: a byte string or a list of items. */
export type RlpItem = Uint8Array | RlpItem[];

/** Why an RLP input was refused (typed, so callers never match on text). */
export type RlpErrorKind = 'truncated' | 'trailing' | 'non_canonical_size' | 'non_canonical_byte' | 'oversized';

/** A malformed RLP input. */
export class RlpError extends Error {
  constructor(
    readonly kind: RlpErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'RlpError';
  }
}

/** Bytes an RLP header takes before a string or list of `n` bytes (payloads here stay below 2^32). */
export function rlpHeaderLength(n: number): number {
  return n < 56 ? 1 : n < 256 ? 2 : n < 65536 ? 3 : n < 16777216 ? 4 : 5;
}

/** Bytes a byte string takes RLP-encoded (a single byte below 0x80 is its own encoding). */
export function rlpStringLength(b: Uint8Array): number {
  const n = b.length;
  if (n === 1 && b[0]! < 0x80) return 1;
  return rlpHeaderLength(n) + n;
}

// Payload sizes of the lists, in the order the writer meets them (depth-first), so each list is sized once.
function measure(item: RlpItem, listSizes: number[]): number {
  if (item instanceof Uint8Array) {
    const n = item.length;
    if (n === 1 && item[0]! < 0x80) return 1;
    return rlpHeaderLength(n) + n;
  }
  const slot = listSizes.length;
  listSizes.push(0);
  let payload = 0;
  for (const child of item) payload += measure(child, listSizes);
  listSizes[slot] = payload;
  return rlpHeaderLength(payload) + payload;
}

/** Writes the header of a string (base 0x80) or list (base 0xc0) of `n` payload bytes; returns the offset after it. */
export function writeRlpHeader(out: Uint8Array, pos: number, n: number, base: number): number {
  if (n < 56) {
    out[pos] = base + n;
    return pos + 1;
  }
  const lol = rlpHeaderLength(n) - 1;
  out[pos] = base + 55 + lol;
  for (let i = lol; i > 0; i--, n = Math.floor(n / 256)) out[pos + i] = n & 0xff;
  return pos + 1 + lol;
}

/** Writes a byte string RLP-encoded; returns the offset after it. */
export function writeRlpString(out: Uint8Array, pos: number, b: Uint8Array): number {
  if (b.length === 1 && b[0]! < 0x80) {
    out[pos] = b[0]!;
    return pos + 1;
  }
  pos = writeRlpHeader(out, pos, b.length, 0x80);
  out.set(b, pos);
  return pos + b.length;
}

function write(item: RlpItem, out: Uint8Array, pos: number, listSizes: number[], cursor: { i: number }): number {
  if (item instanceof Uint8Array) return writeRlpString(out, pos, item);
  pos = writeRlpHeader(out, pos, listSizes[cursor.i++]!, 0xc0);
  for (const child of item) pos = write(child, out, pos, listSizes, cursor);
  return pos;
}

/** The RLP encoding of an item. */
export function rlpEncode(item: RlpItem): Uint8Array {
  return rlpEncodeAfter(item, 0);
}

/**
 * `prefix` bytes the caller fills in, then the RLP encoding of `item` (a typed receipt's type byte comes first).
 * Written into `scratch` when it fits: a view the caller uses up before it reuses the scratch (a value that is only
 * hashed then costs no allocation); else into a new array.
 */
export function rlpEncodeAfter(item: RlpItem, prefix: number, scratch?: Uint8Array): Uint8Array {
  const listSizes: number[] = [];
  const size = prefix + measure(item, listSizes);
  const out = scratch !== undefined && scratch.length >= size ? scratch.subarray(0, size) : new Uint8Array(size);
  write(item, out, prefix, listSizes, { i: 0 });
  return out;
}

interface Header {
  isList: boolean;
  /** Offset of the payload. */
  start: number;
  /** Offset just past the payload. */
  end: number;
}

function readHeader(data: Uint8Array, pos: number, limit: number): Header {
  if (pos >= limit) throw new RlpError('truncated', 'rlp: value size exceeds available input length');
  const b = data[pos]!;
  if (b < 0x80) return { isList: false, start: pos, end: pos + 1 };
  const isList = b >= 0xc0;
  const base = isList ? 0xc0 : 0x80;
  const short = b - base;
  if (short <= 55) {
    const end = pos + 1 + short;
    if (end > limit) throw new RlpError('truncated', 'rlp: value size exceeds available input length');
    if (!isList && short === 1 && data[pos + 1]! < 0x80) {
      throw new RlpError('non_canonical_byte', 'rlp: non-canonical size information');
    }
    return { isList, start: pos + 1, end };
  }
  const lol = short - 55;
  if (pos + 1 + lol > limit) throw new RlpError('truncated', 'rlp: value size exceeds available input length');
  if (data[pos + 1] === 0) throw new RlpError('non_canonical_size', 'rlp: non-canonical size information');
  let length = 0;
  for (let i = 0; i < lol; i++) length = length * 256 + data[pos + 1 + i]!;
  if (length < 56) throw new RlpError('non_canonical_size', 'rlp: non-canonical size information');
  if (length > Number.MAX_SAFE_INTEGER) throw new RlpError('oversized', 'rlp: value too large');
  const start = pos + 1 + lol;
  if (start + length > limit) throw new RlpError('truncated', 'rlp: value size exceeds available input length');
  return { isList, start, end: start + length };
}

function decodeAt(data: Uint8Array, pos: number, limit: number): { item: RlpItem; next: number } {
  const h = readHeader(data, pos, limit);
  if (!h.isList) return { item: data.subarray(h.start, h.end), next: h.end };
  const items: RlpItem[] = [];
  let p = h.start;
  while (p < h.end) {
    const child = decodeAt(data, p, h.end);
    items.push(child.item);
    p = child.next;
  }
  return { item: items, next: h.end };
}

/** Decodes exactly one RLP item spanning all of `data` (byte strings are views into `data`). */
export function rlpDecode(data: Uint8Array): RlpItem {
  const { item, next } = decodeAt(data, 0, data.length);
  if (next !== data.length) throw new RlpError('trailing', 'rlp: input contains more than one value');
  return item;
}
