import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '@ethereumjs/util';
import {
  type ArchiveFixture,
  fixtureAddress as addr,
  fixtureSlot as slot,
  openArchiveFixture,
} from '../../test/helpers/archiveState.ts';
import { ArchiveStateReader } from '../app/evm/archiveReader.ts';
import { addressOf } from '../app/evm/engineTx.ts';
import type { StateDb } from '../app/state/stateDb.ts';
import { initEngine, WorldState } from '../evm/index.ts';
import { keccak256 } from '../primitives/keccak.ts';
import type { KvStore } from '../store/kv.ts';
import { trieKey } from '../store/schema.ts';
import { WorldSyncState } from './syncState.ts';
import { executionState } from '../../test/helpers/ethereumjsState.ts';

describe('WorldSyncState', () => {
  let fixture: ArchiveFixture;
  let kv: KvStore;
  let db: StateDb;
  let root: Uint8Array;

  before(async () => {
    await initEngine();
    fixture = await openArchiveFixture();
    ({ kv, db, root } = fixture);
  });
  after(() => fixture.close());

  it('reads the same accounts, code and storage as the async state manager, before and after writes', async () => {
    const sm = executionState(db, root);
    await sm.checkpoint();
    const world = new WorldState(
      new ArchiveStateReader(
        root,
        (k) => kv.get(trieKey(k)),
        () => undefined,
      ),
    );
    const sync = new WorldSyncState(world);
    const acc = (i: number) => world.account(addressOf(addr(i).bytes));
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
    // The same writes made by the engine (a transaction's, not yet in any trie) and by the state manager.
    await sm.putAccount(addr(41), createAccount({ nonce: 7n, balance: 1n }));
    await sm.putStorage(addr(10), slot(3), Uint8Array.of(0xff));
    await sm.putStorage(addr(10), slot(25), Uint8Array.of(0xee));
    await sm.putCode(addr(41), Uint8Array.of(0x5f));
    await sm.deleteAccount(addr(2));
    world.beginTx(0x11n);
    world.setNonce(acc(41), 7n);
    world.setBalance(acc(41), 1n);
    world.setStorage(acc(10), 3n, 0xffn);
    world.setStorage(acc(10), 25n, 0xeen);
    world.setCode(acc(41), Uint8Array.of(0x5f), keccak256(Uint8Array.of(0x5f)));
    // An emptied account a transaction touched is deleted at its end (EIP-161).
    world.setBalance(acc(2), 0n);
    world.setNonce(acc(2), 0n);
    world.touch(acc(2));
    world.finalizeTx();
    await check();
    assert.equal(sync.account(addr(2).bytes), undefined);
    assert.deepEqual(new Uint8Array(sync.code(addr(41).bytes)), Uint8Array.of(0x5f));
  });
});
