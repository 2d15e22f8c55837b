// A small committed state in a LevelDB archive, for the tests of the synchronous state readers (the engine's
// ArchiveStateReader, the tracers' CachedSyncState): 40 accounts, every fifth with code and 20 storage slots.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, createAccount } from '@ethereumjs/util';
import { createFastKeccak, createSharedCommon } from '../../src/app/evm/common.ts';
import { StateDb } from '../../src/app/state/stateDb.ts';
import { KvStore } from '../../src/store/kv.ts';
import { executionState } from './ethereumjsState.ts';

/** The fixture's address `i` (20 bytes of i). */
export const fixtureAddress = (i: number): Address => new Address(new Uint8Array(20).fill(i));
/** Storage slot `i` as a 32-byte key. */
export const fixtureSlot = (i: number): Uint8Array => new Uint8Array(32).map((_, j) => (j === 31 ? i : 0));

/** The archive, its state DB and the committed root; close() removes it. */
export interface ArchiveFixture {
  kv: KvStore;
  db: StateDb;
  root: Uint8Array;
  close(): Promise<void>;
}

/** Commits the fixture state into a fresh archive under the temp dir. */
export async function openArchiveFixture(): Promise<ArchiveFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-archive-'));
  const kv = await KvStore.open(join(dir, 'db'));
  const db = new StateDb(kv, createSharedCommon(9000n, await createFastKeccak()));
  const buf = db.bufferedDb();
  const sm = executionState(db, new Uint8Array(0), buf);
  for (let i = 1; i <= 40; i++) {
    const a = fixtureAddress(i);
    await sm.putAccount(a, createAccount({ nonce: BigInt(i), balance: BigInt(i) * 10n ** 18n }));
    if (i % 5 === 0) {
      await sm.putCode(a, Uint8Array.of(0x60, i, 0x00));
      for (let s = 0; s < 20; s++) await sm.putStorage(a, fixtureSlot(s), Uint8Array.of(i, s + 1));
    }
  }
  await sm.flush();
  const root = await sm.getStateRoot();
  await kv.write(buf.drain());
  return {
    kv,
    db,
    root,
    async close() {
      await kv.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
