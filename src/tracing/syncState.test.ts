import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '@ethereumjs/util';
import {
  type ArchiveFixture,
  fixtureAddress as addr,
  fixtureSlot as slot,
  openArchiveFixture,
} from '../../test/helpers/archiveState.ts';
import type { StateDb } from '../app/state/stateDb.ts';
import type { KvStore } from '../store/kv.ts';
import { trieKey } from '../store/schema.ts';
import { CachedSyncState } from './syncState.ts';

describe('CachedSyncState', () => {
  let fixture: ArchiveFixture;
  let kv: KvStore;
  let db: StateDb;
  let root: Uint8Array;

  before(async () => {
    fixture = await openArchiveFixture();
    ({ kv, db, root } = fixture);
  });
  after(() => fixture.close());

  it('reads the same accounts, code and storage as the async state manager, before and after writes', async () => {
    const sm = db.executionState(root);
    await sm.checkpoint();
    const sync = new CachedSyncState(sm, (k) => kv.get(trieKey(k)));
    const check = async () => {
      for (let i = 0; i <= 42; i++) {
        const a = addr(i);
        const want = await sm.getAccount(a);
        const got = sync.account(a.bytes);
        assert.equal(got?.nonce, want?.nonce, `nonce ${i}`);
        assert.equal(got?.balance, want?.balance, `balance ${i}`);
        assert.deepEqual(new Uint8Array(sync.code(a.bytes)), new Uint8Array(await sm.getCode(a)));
        for (const s of [0, 3, 19, 25]) {
          const v = await sm.getStorage(a, slot(s));
          const w = new Uint8Array(32);
          w.set(v, 32 - v.length);
          assert.deepEqual(new Uint8Array(sync.storage(a.bytes, slot(s))), w, `storage ${i}/${s}`);
        }
      }
    };
    // Fresh view: everything comes from the trie (nothing cached yet).
    for (let i = 1; i <= 40; i += 7) assert.equal(sync.account(addr(i).bytes)?.nonce, BigInt(i));
    await check();
    // In-flight writes live in the caches only (the checkpoint keeps them from the trie).
    await sm.putAccount(addr(41), createAccount({ nonce: 7n, balance: 1n }));
    await sm.putStorage(addr(10), slot(3), Uint8Array.of(0xff));
    await sm.putStorage(addr(10), slot(25), Uint8Array.of(0xee));
    await sm.putCode(addr(41), Uint8Array.of(0x5f));
    await sm.deleteAccount(addr(2));
    await check();
    assert.equal(sync.account(addr(2).bytes), undefined);
    assert.deepEqual(new Uint8Array(sync.code(addr(41).bytes)), Uint8Array.of(0x5f));
  });
});
