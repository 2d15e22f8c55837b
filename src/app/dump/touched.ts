// The accounts and storage slots blocks wrote, by address and slot. The state trie is keyed by their hashes, so a
// state dump (anvil_dumpState) needs them to name what it lists; only the dev toolkit records them, in each block's
// atomic batch, so a restart keeps them.
import type { CommittedBlock } from '../app.ts';
import type { KvOp, KvStore } from '../../store/kv.ts';
import { TOUCHED_RANGE, touchedKey } from '../../store/schema.ts';
import type { StateEdit } from '../stateEdits.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const EMPTY = new Uint8Array(0);

/** Accounts and slots the chain has written, kept in memory and on disk. */
export class TouchedState {
  /** Address hex → slot hexes. */
  private readonly accounts = new Map<string, Set<string>>();

  /** Reads what earlier runs recorded. */
  static async load(kv: KvStore): Promise<TouchedState> {
    const t = new TouchedState();
    for await (const k of kv.keys(TOUCHED_RANGE.gte, TOUCHED_RANGE.lt)) {
      const addr = k.subarray(1, 21);
      t.add(addr, k.length === 53 ? k.subarray(21, 53) : undefined);
    }
    return t;
  }

  /** Records `addr` (and `slot`); the write ops when it is new. */
  private add(addr: Uint8Array, slot?: Uint8Array): KvOp[] {
    const a = hex(addr);
    let slots = this.accounts.get(a);
    const ops: KvOp[] = [];
    if (!slots) {
      this.accounts.set(a, (slots = new Set()));
      ops.push({ type: 'put', key: touchedKey(addr), value: EMPTY });
    }
    if (slot !== undefined && !slots.has(hex(slot))) {
      slots.add(hex(slot));
      ops.push({ type: 'put', key: touchedKey(addr, slot), value: EMPTY });
    }
    return ops;
  }

  /** The ops recording what a block wrote (an app indexer: they join the block's batch). */
  blockOps(c: CommittedBlock): KvOp[] {
    const ops: KvOp[] = [];
    for (const ch of c.stateChanges ?? []) {
      ops.push(...this.add(ch.address));
      for (const [slot] of ch.storage) ops.push(...this.add(ch.address, slot));
    }
    return ops;
  }

  /** The ops recording the genesis allocation (written at start, idempotent). */
  genesisOps(edits: readonly StateEdit[]): KvOp[] {
    const ops: KvOp[] = [];
    for (const e of edits) {
      ops.push(...this.add(e.address));
      for (const [slot] of e.storage ?? []) ops.push(...this.add(e.address, slot));
    }
    return ops;
  }

  /** Every recorded account with its recorded slots (hex without 0x), in address order. */
  entries(): Array<[address: string, slots: string[]]> {
    return [...this.accounts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([a, s]) => [a, [...s].sort()]);
  }
}
