import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Address, createAccount } from '@ethereumjs/util';
import { createFastKeccak, createSharedCommon } from '../app/evm/common.ts';
import { StateDb } from '../app/state/stateDb.ts';
import { KvStore } from '../store/kv.ts';
import { trieKey } from '../store/schema.ts';
import { CachedSyncState } from './syncState.ts';

const addr = (i: number) => new Address(new Uint8Array(20).fill(i));
const slot = (i: number) => new Uint8Array(32).fill(0).map((_, j) => (j === 31 ? i : 0));

describe('CachedSyncState', () => {
  let dir: string;
  let kv: KvStore;
  let db: StateDb;
  let root: Uint8Array;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-sync-'));
    kv = await KvStore.open(join(dir, 'db'));
    const keccak = await createFastKeccak();
    db = new StateDb(kv, createSharedCommon(9000n, keccak));
    // A committed base state: 40 accounts, some with code and storage.
    const buf = db.bufferedDb();
    const sm = db.executionState(new Uint8Array(0), buf);
    for (let i = 1; i <= 40; i++) {
      await sm.putAccount(addr(i), createAccount({ nonce: BigInt(i), balance: BigInt(i) * 10n ** 18n }));
      if (i % 5 === 0) {
        await sm.putCode(addr(i), Uint8Array.of(0x60, i, 0x00));
        for (let s = 0; s < 20; s++) await sm.putStorage(addr(i), slot(s), Uint8Array.of(i, s + 1));
      }
    }
    await sm.flush();
    root = await sm.getStateRoot();
    await kv.write(buf.drain());
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

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
