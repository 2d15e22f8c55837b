// The plain account and slot values a reader knows at one state root, as a layer over its parent root's values.
// A block's carry only adds a layer holding what the block changed, so handing the state to the next block costs
// what the block wrote rather than everything read since the carry started; the parent's layer stays its root's,
// which an abandoned block or a preview of it goes back to. Lookups fall through the layers; once a chain grows
// deeper than MAX_LAYERS its lowest layer is folded into the base in place (see fold), so misses stay cheap.
import type { AccountInfo, Address } from '../../evm/index.ts';

/** An account as the archive holds it: the engine's view plus the storage root to read slots under. */
export interface StoredAccount {
  info: AccountInfo;
  storageRoot: Uint8Array;
}

/**
 * Layers kept over a base before the lowest is folded into it. Every layer is folded once whatever the depth, so
 * depth buys nothing but older roots' values (which no reader of a carry asks for once the head has moved) and costs
 * every miss a look in each layer: one layer (the newest block's changes over everything before) is the cheapest.
 */
const MAX_LAYERS = 1;

/** Accounts (null: absent) and slots known at one root; what a layer does not know falls through to its parent. */
export class FlatLayer {
  private accounts = new Map<Address, StoredAccount | null>();
  private slots = new Map<Address, Map<bigint, bigint>>();
  /** Addresses whose storage this layer replaced whole (cleared or deleted): their slots never fall through. */
  private cleared = new Set<Address>();

  constructor(private parent?: FlatLayer) {}

  /** The account at this layer's root as known (null: absent), or undefined when no layer knows it. */
  account(address: Address): StoredAccount | null | undefined {
    const acc = this.accounts.get(address);
    if (acc !== undefined || this.parent === undefined) return acc;
    return this.parent.account(address);
  }

  /** A slot's value at this layer's root as known, or undefined when no layer knows it. */
  slot(address: Address, slot: bigint): bigint | undefined {
    const value = this.slots.get(address)?.get(slot);
    if (value !== undefined || this.parent === undefined) return value;
    if (this.cleared.size > 0 && this.cleared.has(address)) return undefined;
    return this.parent.slot(address, slot);
  }

  /** Records an account read at this layer's root. */
  setAccount(address: Address, acc: StoredAccount | null): void {
    this.accounts.set(address, acc);
  }

  /** Records a slot read (or written, for a new layer) at this layer's root. */
  setSlot(address: Address, slot: bigint, value: bigint): void {
    let words = this.slots.get(address);
    if (words === undefined) {
      words = new Map();
      this.slots.set(address, words);
    }
    words.set(slot, value);
  }

  /** Marks `address`'s storage as replaced at this root: the parent's slots of it no longer hold. */
  clearStorage(address: Address): void {
    this.cleared.add(address);
    this.slots.delete(address);
  }

  /** A new layer over this one; folds the lowest layers of the chain into its base while it is too deep. */
  child(): FlatLayer {
    const layer = new FlatLayer(this);
    const chain: FlatLayer[] = [];
    for (let l: FlatLayer | undefined = layer; l !== undefined; l = l.parent) chain.push(l);
    // chain ends with the base; fold its lowest layer into it until at most MAX_LAYERS sit over the base.
    for (let i = chain.length - 2; i >= MAX_LAYERS; i--) chain[i]!.fold();
    return layer;
  }

  /**
   * Folds this layer's parent (a base: no parent of its own) into this layer by writing this layer's values into
   * the base's maps in place and taking them: the cost is what this layer holds. This layer becomes the base; the
   * old base object is left knowing nothing, so a reader still at its root (or a layer over it other than this one)
   * reads the archive again instead of values of another root.
   */
  private fold(): void {
    const base = this.parent!;
    for (const address of this.cleared) base.slots.delete(address);
    for (const [address, acc] of this.accounts) base.accounts.set(address, acc);
    for (const [address, words] of this.slots) {
      const into = base.slots.get(address);
      if (into === undefined) base.slots.set(address, words);
      else for (const [slot, value] of words) into.set(slot, value);
    }
    this.accounts = base.accounts;
    this.slots = base.slots;
    this.cleared = new Set();
    this.parent = undefined;
    base.accounts = new Map();
    base.slots = new Map();
    base.cleared = new Set();
  }
}
