// The accounts and storage slots blocks wrote, by address and slot. The state trie is keyed by their hashes, so a
// state dump (anvil_dumpState) needs them to name what it lists; only the dev toolkit records them, in each block's
// atomic batch, so a restart keeps them. The record lives on disk only: holding it in memory would make every start
// read it whole and the node's memory grow with the state, outside the cache budget. A bounded memo of keys known to
// be recorded spares the store a lookup for the accounts and slots blocks write again and again.
import type { CommittedBlock } from '../app.ts';
import type { KvOp, KvStore } from '../../store/kv.ts';
import { TOUCHED_RANGE, touchedKey } from '../../store/schema.ts';
import { BoundedMemo } from '../../primitives/boundedMemo.ts';
import type { StateEdit } from '../stateEdits.ts';

const EMPTY = new Uint8Array(0);
/** Recorded keys remembered at most (latin1 strings of ≤ 53 bytes): a few MiB whatever the state size. */
const KNOWN_KEYS = 65_536;
const ADDRESS_KEY_LENGTH = 21;
const SLOT_KEY_LENGTH = 53;

/** Accounts and slots the chain has written, recorded on disk. */
export class TouchedState {
  /** Keys recorded on disk or in a batch already handed out (latin1 of the key). */
  private readonly known = new BoundedMemo<string, true>(KNOWN_KEYS);

  constructor(private readonly kv: KvStore) {}

  /** The put of `key` when it is not recorded yet (and not in an earlier op of this node). */
  private record(key: Uint8Array, ops: KvOp[]): void {
    const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
    if (this.known.get(id) !== undefined) return;
    this.known.set(id, true);
    if (this.kv.get(key) === undefined) ops.push({ type: 'put', key, value: EMPTY });
  }

  /** Records `addr` (and `slot`) into `ops` when new. */
  private add(addr: Uint8Array, ops: KvOp[], slot?: Uint8Array): void {
    this.record(touchedKey(addr), ops);
    if (slot !== undefined) this.record(touchedKey(addr, slot), ops);
  }

  /** The ops recording what a block wrote (an app indexer: they join the block's batch). */
  blockOps(c: CommittedBlock): KvOp[] {
    const ops: KvOp[] = [];
    for (const ch of c.stateChanges ?? []) {
      this.add(ch.address, ops);
      for (const [slot] of ch.storage) this.add(ch.address, ops, slot);
    }
    return ops;
  }

  /** The ops recording the genesis allocation (written at start, idempotent). */
  genesisOps(edits: readonly StateEdit[]): KvOp[] {
    const ops: KvOp[] = [];
    for (const e of edits) {
      this.add(e.address, ops);
      for (const [slot] of e.storage ?? []) this.add(e.address, ops, slot);
    }
    return ops;
  }

  /**
   * Every recorded account with its recorded slots (hex without 0x), in address order, read from the store; the
   * caller keeps blocks from committing meanwhile (a dump runs inside the engine's exclusive section).
   */
  async *entries(): AsyncGenerator<[address: string, slots: string[]]> {
    let address: string | undefined;
    let slots: string[] = [];
    for await (const k of this.kv.keys(TOUCHED_RANGE.gte, TOUCHED_RANGE.lt)) {
      if (k.length !== ADDRESS_KEY_LENGTH && k.length !== SLOT_KEY_LENGTH) continue;
      const a = Buffer.from(k.subarray(1, ADDRESS_KEY_LENGTH)).toString('hex');
      if (a !== address) {
        if (address !== undefined) yield [address, slots];
        address = a;
        slots = [];
      }
      if (k.length === SLOT_KEY_LENGTH) slots.push(Buffer.from(k.subarray(ADDRESS_KEY_LENGTH)).toString('hex'));
    }
    if (address !== undefined) yield [address, slots];
  }
}
