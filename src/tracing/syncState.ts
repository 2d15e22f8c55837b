// Synchronous state reads for tracers. Tracer hooks (and the JS sandbox's db.getBalance & co.) run inside the
// engine's synchronous hooks; they read the run's own WorldState, so they see the state as of the current
// execution point: every write made so far, the archive's values for the rest.
import type { WorldState } from '../evm/index.ts';
import { bytesToBigint, wordToBytes } from '../primitives/bytes.ts';
import { addressOf } from '../app/evm/engineTx.ts';

export type { NodeSource } from '../primitives/trie/read.ts';

/** The account fields tracers read. */
export interface AccountState {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
}

/** Synchronous reads of the state as of the current execution point. */
export interface SyncState {
  account(addr: Uint8Array): AccountState | undefined;
  code(addr: Uint8Array): Uint8Array;
  /** The 32-byte value of a slot (zero when unset). */
  storage(addr: Uint8Array, slot: Uint8Array): Uint8Array;
}

/** Reads through a WorldState (loading what it has not seen yet, without writing or warming anything). */
export class WorldSyncState implements SyncState {
  constructor(private readonly world: WorldState) {}

  /** Account fields, or undefined when the account does not exist. */
  account(addr: Uint8Array): AccountState | undefined {
    const a = this.world.account(addressOf(addr));
    return a.exists ? { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash } : undefined;
  }

  /** Contract code (empty for accounts without code). */
  code(addr: Uint8Array): Uint8Array {
    const a = this.world.account(addressOf(addr));
    return a.exists ? this.world.code(a) : new Uint8Array(0);
  }

  /** A storage word, 32 bytes. */
  storage(addr: Uint8Array, slot: Uint8Array): Uint8Array {
    return wordToBytes(this.world.storage(this.world.account(addressOf(addr)), bytesToBigint(slot)));
  }
}
