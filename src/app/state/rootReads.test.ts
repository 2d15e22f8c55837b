// The shared per-root reads of call state managers must answer exactly what the trie at that root holds: never
// a value from another root, never a value written (and reverted) by an earlier call, never a slot of storage the
// running call cleared.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccount } from '@ethereumjs/util';
import { KvStore } from '../../store/kv.ts';
import { createFastKeccak, createSharedCommon } from '../evm/common.ts';
import { RootReads } from './rootReads.ts';
import { StateDb } from './stateDb.ts';

const contract = new Address(new Uint8Array(20).fill(0xc0));
const other = new Address(new Uint8Array(20).fill(0x0e));
const absent = new Address(new Uint8Array(20).fill(0xab));
const slot = (i: number): Uint8Array => {
  const s = new Uint8Array(32);
  s[31] = i;
  return s;
};
const CODE_A = Uint8Array.of(0x60, 0x01, 0x00);
const CODE_B = Uint8Array.of(0x60, 0x02, 0x00);

describe('RootReads / StateDb.callState', () => {
  let dir: string;
  let kv: KvStore;
  let db: StateDb;
  let rootA: Uint8Array;
  let rootB: Uint8Array;

  /** Applies `change` on top of `root` and persists the result; returns the new root. */
  async function commit(root: Uint8Array, change: (sm: MerkleStateManager) => Promise<void>): Promise<Uint8Array> {
    const buf = db.bufferedDb();
    const sm = db.executionState(root, buf);
    await change(sm);
    await sm.flush();
    const next = await sm.getStateRoot();
    await kv.write(buf.drain());
    return next;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-rootreads-'));
    kv = await KvStore.open(join(dir, 'db'));
    db = new StateDb(kv, createSharedCommon(9000n, await createFastKeccak()));
    rootA = await commit(new Uint8Array(0), async (sm) => {
      await sm.putAccount(contract, createAccount({ nonce: 1n, balance: 100n }));
      await sm.putCode(contract, CODE_A);
      await sm.putStorage(contract, slot(1), Uint8Array.of(0x11));
      await sm.putStorage(contract, slot(2), Uint8Array.of(0x22));
      await sm.putAccount(other, createAccount({ nonce: 0n, balance: 5n }));
    });
    // The next block: slot 1 and the balance change, slot 2 is deleted, the code is replaced.
    rootB = await commit(rootA, async (sm) => {
      await sm.putStorage(contract, slot(1), Uint8Array.of(0x99));
      await sm.putStorage(contract, slot(2), new Uint8Array(0));
      await sm.modifyAccountFields(contract, { balance: 200n });
      await sm.putCode(contract, CODE_B);
    });
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function snapshot(sm: MerkleStateManager) {
    return {
      balance: (await sm.getAccount(contract))?.balance,
      s1: Buffer.from(await sm.getStorage(contract, slot(1))).toString('hex'),
      s2: Buffer.from(await sm.getStorage(contract, slot(2))).toString('hex'),
      code: Buffer.from(await sm.getCode(contract)).toString('hex'),
      absent: await sm.getAccount(absent),
    };
  }
  const AT_A = { balance: 100n, s1: '11', s2: '22', code: '600100', absent: undefined };
  const AT_B = { balance: 200n, s1: '99', s2: '', code: '600200', absent: undefined };

  it('answers each root with its own values, from the trie and then from the shared reads', async () => {
    const readsA = new RootReads(rootA);
    const readsB = new RootReads(rootB);
    for (let round = 0; round < 2; round++) {
      // Fresh state managers each round: the second round is served by the shared reads, not their own caches.
      assert.deepEqual(await snapshot(db.callState(readsA)), AT_A, `root A, round ${round}`);
      assert.deepEqual(await snapshot(db.callState(readsB)), AT_B, `root B, round ${round}`);
    }
    // The newer root read first, then the older one, through the same interleaving.
    const readsA2 = new RootReads(rootA);
    const readsB2 = new RootReads(rootB);
    assert.deepEqual(await snapshot(db.callState(readsB2)), AT_B);
    assert.deepEqual(await snapshot(db.callState(readsA2)), AT_A);
    assert.deepEqual(await snapshot(db.callState(readsB2)), AT_B);
  });

  it('never keeps what a reverted call wrote', async () => {
    const reads = new RootReads(rootA);
    const sm = db.callState(reads);
    await sm.checkpoint();
    await sm.putStorage(contract, slot(1), Uint8Array.of(0x77));
    await sm.putStorage(contract, slot(3), Uint8Array.of(0x33));
    await sm.modifyAccountFields(contract, { balance: 1n });
    await sm.putAccount(absent, createAccount({ balance: 9n }));
    await sm.putCode(other, CODE_B);
    assert.equal(Buffer.from(await sm.getStorage(contract, slot(1))).toString('hex'), '77');
    await sm.revert();
    assert.deepEqual(await snapshot(sm), AT_A);
    assert.equal((await sm.getStorage(contract, slot(3))).length, 0);
    assert.equal((await sm.getCode(other)).length, 0);
    const fresh = db.callState(reads);
    assert.deepEqual(await snapshot(fresh), AT_A);
    assert.equal((await fresh.getStorage(contract, slot(3))).length, 0);
    assert.equal((await fresh.getCode(other)).length, 0);
  });

  it('reads cleared storage as empty even when the shared reads hold the old words', async () => {
    const reads = new RootReads(rootA);
    assert.deepEqual(await snapshot(db.callState(reads)), AT_A);
    const sm = db.callState(reads);
    await sm.checkpoint();
    // A contract created over an address with storage (CREATE2 after a self-destruct) starts with none.
    await sm.clearStorage(contract);
    assert.equal((await sm.getStorage(contract, slot(1))).length, 0);
    assert.equal((await sm.getStorage(contract, slot(2))).length, 0);
    await sm.revert();
    assert.equal(Buffer.from(await sm.getStorage(contract, slot(1))).toString('hex'), '11');
  });

  it('starts over when full and still answers every read', async () => {
    const reads = new RootReads(rootA, 3);
    for (let round = 0; round < 3; round++) {
      const sm = db.callState(reads);
      assert.deepEqual(await snapshot(sm), AT_A, `round ${round}`);
      assert.equal((await sm.getAccount(other))?.balance, 5n);
      for (let i = 4; i < 9; i++) assert.equal((await sm.getStorage(contract, slot(i))).length, 0);
    }
  });

  it('stops using the shared accounts once its own account trie moved (a flushed write)', async () => {
    const reads = new RootReads(rootA);
    assert.deepEqual(await snapshot(db.callState(reads)), AT_A);
    const sm = db.callState(reads);
    await sm.modifyAccountFields(other, { balance: 6n });
    await sm.flush();
    // With its caches dropped, the read goes to the (moved) trie: the shared value of root A would be stale.
    sm.clearCaches();
    assert.equal((await sm.getAccount(other))?.balance, 6n);
    assert.equal((await db.callState(reads).getAccount(other))?.balance, 5n);
  });
});
