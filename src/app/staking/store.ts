// The modules' state lives in their precompile accounts' storage, so it is in the state root (the app hash), kept
// at every height of the archive, pruned, snapshotted and state-synced with the rest of the state, and journaled
// with the transaction that changes it (a revert undoes it). This file maps keyed records and ordered sets onto
// 32-byte slots: a record at keccak(tag ‖ key) holds its length + 1, its bytes follow in the next slots.
import { keccak256 } from '../../primitives/hash.ts';
import { bytesToBigint, bigintToBytes, concatBytes, padLeft } from '../../primitives/hex.ts';
import { KestrelError } from '../../errors/index.ts';

/** Slot reads and (where allowed) writes of module accounts. */
export interface Slots {
  get(address: bigint, slot: bigint): bigint;
  set(address: bigint, slot: bigint, value: bigint): void;
}

/** Slots over a read-only state (queries): a write is a programming error. */
export function readOnlySlots(read: (address: bigint, slot: bigint) => bigint): Slots {
  return {
    get: read,
    set() {
      throw new KestrelError('write to module state in a read-only view');
    },
  };
}

const utf8 = new TextEncoder();
const MASK256 = (1n << 256n) - 1n;

function slotOf(tag: string, key: Uint8Array): bigint {
  return bytesToBigint(keccak256(concatBytes(utf8.encode(tag), key)));
}

/** Keyed byte records in one account's storage. */
export class Records {
  constructor(
    private readonly slots: Slots,
    private readonly address: bigint,
    private readonly tag: string,
  ) {}

  /** The record under `key`, or undefined. */
  get(key: Uint8Array): Uint8Array | undefined {
    const base = slotOf(this.tag, key);
    const head = this.slots.get(this.address, base);
    if (head === 0n) return undefined;
    const len = Number(head - 1n);
    const out = new Uint8Array(Math.ceil(len / 32) * 32);
    for (let i = 0; i * 32 < len; i++) {
      const w = this.slots.get(this.address, (base + 1n + BigInt(i)) & MASK256);
      out.set(padLeft(bigintToBytes(w), 32), i * 32);
    }
    return out.subarray(0, len);
  }

  /** Writes (or, with undefined, deletes) the record under `key`. */
  put(key: Uint8Array, value: Uint8Array | undefined): void {
    const base = slotOf(this.tag, key);
    const head = this.slots.get(this.address, base);
    const oldWords = head === 0n ? 0 : Math.ceil(Number(head - 1n) / 32);
    const newWords = value === undefined ? 0 : Math.ceil(value.length / 32);
    if (value === undefined) {
      if (head !== 0n) this.slots.set(this.address, base, 0n);
    } else {
      this.slots.set(this.address, base, BigInt(value.length) + 1n);
      const padded = new Uint8Array(newWords * 32);
      padded.set(value);
      for (let i = 0; i < newWords; i++) {
        const slot = (base + 1n + BigInt(i)) & MASK256;
        const w = bytesToBigint(padded.subarray(i * 32, i * 32 + 32));
        if (this.slots.get(this.address, slot) !== w) this.slots.set(this.address, slot, w);
      }
    }
    for (let i = newWords; i < oldWords; i++) this.slots.set(this.address, (base + 1n + BigInt(i)) & MASK256, 0n);
  }
}

/** An ordered set of byte strings in one account's storage: insertion order, O(1) add and remove (swap-remove). */
export class OrderedSet {
  private readonly items: Records;
  private readonly countSlot: bigint;

  constructor(
    private readonly slots: Slots,
    private readonly address: bigint,
    private readonly tag: string,
  ) {
    this.items = new Records(slots, address, `${tag}/item`);
    this.countSlot = slotOf(`${tag}/count`, new Uint8Array(0));
  }

  private posSlot(item: Uint8Array): bigint {
    return slotOf(`${this.tag}/pos`, item);
  }

  /** How many items the set holds. */
  size(): number {
    return Number(this.slots.get(this.address, this.countSlot));
  }

  /** Whether the set holds `item`. */
  has(item: Uint8Array): boolean {
    return this.slots.get(this.address, this.posSlot(item)) !== 0n;
  }

  /** Adds `item` (no-op when present). */
  add(item: Uint8Array): void {
    if (this.has(item)) return;
    const n = this.size();
    this.items.put(u32(n), item);
    this.slots.set(this.address, this.posSlot(item), BigInt(n) + 1n);
    this.slots.set(this.address, this.countSlot, BigInt(n) + 1n);
  }

  /** Removes `item` (no-op when absent); the last item takes its place. */
  delete(item: Uint8Array): void {
    const pos = this.slots.get(this.address, this.posSlot(item));
    if (pos === 0n) return;
    const i = Number(pos - 1n);
    const last = this.size() - 1;
    if (i !== last) {
      const moved = this.items.get(u32(last))!;
      this.items.put(u32(i), moved);
      this.slots.set(this.address, this.posSlot(moved), BigInt(i) + 1n);
    }
    this.items.put(u32(last), undefined);
    this.slots.set(this.address, this.posSlot(item), 0n);
    this.slots.set(this.address, this.countSlot, BigInt(last));
  }

  /** Every item, in the set's order. */
  values(): Uint8Array[] {
    const out: Uint8Array[] = [];
    const n = this.size();
    for (let i = 0; i < n; i++) out.push(this.items.get(u32(i))!);
    return out;
  }
}

function u32(n: number): Uint8Array {
  return Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}
