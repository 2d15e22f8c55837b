// EVM memory: a growable byte buffer, pooled with its frame. Sizes are plain numbers: every offset reaching
// here has been checked against MEM_LIMIT, so offset + size < 2^33 and the word-count arithmetic is exact.
import { wordOfView, writeWordToView } from '../../primitives/bytes.ts';

/** Memory beyond 2^32 bytes is treated as out of gas (as evmone does): its cost (> 2^45 gas) exceeds any real
 * gas limit, and the bound keeps every size arithmetic exact in doubles. */
export const MEM_LIMIT = 0xffffffff;
/** MEM_LIMIT as a bigint, for checking stack words. */
export const MEM_LIMIT_BIG = 0xffffffffn;

/** Gas for `words` words of memory: 3w + floor(w²/512), exact for w ≤ 2^27. */
export function memoryGas(words: number): number {
  // Split w² so no intermediate exceeds 2^53: w² / 512 = (w >> 9)·w + ((w & 511)·w) / 512.
  return 3 * words + (words >>> 9) * words + Math.floor(((words & 511) * words) / 512);
}

/** A frame's memory. */
export class Memory {
  buf: Uint8Array = new Uint8Array(1024);
  /** A view of buf (replaced with it): MLOAD and MSTORE read and write words through it, copying nothing. */
  private view = new DataView(this.buf.buffer);
  /** Active size in bytes (a multiple of 32). */
  size = 0;

  /** Empties the memory for reuse by another frame. */
  reset(): void {
    this.size = 0;
  }

  /** Gas to grow to cover `end` bytes (end ≤ 2^33), 0 if already covered. */
  expansionCost(end: number): number {
    if (end <= this.size) return 0;
    return memoryGas(Math.ceil(end / 32)) - memoryGas(this.size / 32);
  }

  /** Grows the active size to cover `end` bytes, zero-filled. */
  grow(end: number): void {
    if (end <= this.size) return;
    const newSize = Math.ceil(end / 32) * 32;
    if (newSize > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < newSize) cap *= 2;
      const nb = new Uint8Array(cap);
      nb.set(this.buf.subarray(0, this.size));
      this.buf = nb;
      this.view = new DataView(nb.buffer);
    } else {
      this.buf.fill(0, this.size, newSize);
    }
    this.size = newSize;
  }

  /** The word at `off` (inside the active size). */
  loadWord(off: number): bigint {
    return wordOfView(this.view, off);
  }

  /** Writes `v` (< 2^256) as 32 big-endian bytes at `off` (inside the active size). */
  storeWord(off: number, v: bigint): void {
    writeWordToView(this.view, off, v);
  }

  /** A copy of [off, off+len) (the range is inside the active size). */
  slice(off: number, len: number): Uint8Array {
    return this.buf.slice(off, off + len);
  }
}
