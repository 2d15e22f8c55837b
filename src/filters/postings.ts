// One bucket of a log-index posting list: the set of block offsets (0..BUCKET-1) within a bucket of BUCKET
// consecutive blocks. Sparse sets are a sorted u16 list, dense ones a bitmap, so a rare topic costs a few
// bytes and a topic present in every block costs 512 bytes per 4096 blocks.

/** Blocks per bucket. */
export const BUCKET = 4096;
/** Bytes of a dense bucket bitmap. */
export const BITMAP_BYTES = BUCKET / 8;

const SPARSE = 0;
const DENSE = 1;
/** A sparse list stops paying off once it is as large as the bitmap. */
const MAX_SPARSE = BITMAP_BYTES / 2;

/** Adds `offset` (≥ every offset already present) to an encoded set; returns the new encoding. */
export function appendOffset(encoded: Uint8Array | undefined, offset: number): Uint8Array {
  if (encoded === undefined || encoded.length === 0) return Uint8Array.of(SPARSE, offset >> 8, offset & 0xff);
  if (encoded[0] === DENSE) {
    const out = encoded.slice();
    out[1 + (offset >> 3)]! |= 1 << (offset & 7);
    return out;
  }
  const n = (encoded.length - 1) >> 1;
  const last = (encoded[encoded.length - 2]! << 8) | encoded[encoded.length - 1]!;
  if (last === offset) return encoded;
  if (n + 1 > MAX_SPARSE) {
    const out = new Uint8Array(1 + BITMAP_BYTES);
    out[0] = DENSE;
    orInto(out.subarray(1), encoded);
    out[1 + (offset >> 3)]! |= 1 << (offset & 7);
    return out;
  }
  const out = new Uint8Array(encoded.length + 2);
  out.set(encoded);
  out[encoded.length] = offset >> 8;
  out[encoded.length + 1] = offset & 0xff;
  return out;
}

/** ORs an encoded set into a bitmap of BITMAP_BYTES bytes. */
export function orInto(bitmap: Uint8Array, encoded: Uint8Array): void {
  if (encoded[0] === DENSE) {
    for (let i = 0; i < BITMAP_BYTES; i++) bitmap[i]! |= encoded[1 + i]!;
    return;
  }
  for (let i = 1; i + 1 < encoded.length; i += 2) {
    const off = (encoded[i]! << 8) | encoded[i + 1]!;
    bitmap[off >> 3]! |= 1 << (off & 7);
  }
}

/** Offsets set in a bitmap within [lo, hi], ascending. */
export function* setBits(bitmap: Uint8Array, lo: number, hi: number): Generator<number> {
  for (let byte = lo >> 3; byte <= hi >> 3; byte++) {
    const v = bitmap[byte]!;
    if (v === 0) continue;
    for (let bit = 0; bit < 8; bit++) {
      const off = (byte << 3) | bit;
      if (off >= lo && off <= hi && (v & (1 << bit)) !== 0) yield off;
    }
  }
}

/** The set without its offsets above `keep` (-1 keeps none); undefined when nothing is left. */
export function truncateSet(encoded: Uint8Array, keep: number): Uint8Array | undefined {
  const bitmap = new Uint8Array(BITMAP_BYTES);
  orInto(bitmap, encoded);
  let out: Uint8Array | undefined;
  for (const off of setBits(bitmap, 0, keep)) out = appendOffset(out, off);
  return out;
}
