import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Address, createAccount } from '@ethereumjs/util';
import { KvStore } from '../../store/kv.ts';
import { trieKey } from '../../store/schema.ts';
import { StateDb } from '../state/stateDb.ts';
import { MissingTrieNodeError } from '../state/walk.ts';
import { ArchiveStateReader } from './archiveReader.ts';
import { createFastKeccak, createSharedCommon } from './common.ts';

const addr = (i: number) => new Address(new Uint8Array(20).fill(i));
const big = (a: Address) => BigInt('0x' + Buffer.from(a.bytes).toString('hex'));
const slot = (i: number) => new Uint8Array(32).map((_, j) => (j === 31 ? i : 0));

describe('ArchiveStateReader', () => {
  let dir: string;
  let kv: KvStore;
  let db: StateDb;
  let root: Uint8Array;
  const readNode = (k: Uint8Array) => kv.get(trieKey(k));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-archive-reader-'));
    kv = await KvStore.open(join(dir, 'db'));
    db = new StateDb(kv, createSharedCommon(9000n, await createFastKeccak()));
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

  it('reads the accounts, code and storage the async state manager reads at the same root', async () => {
    const sm = db.executionState(root);
    // A small memo bound, so the reads also cross a reset of the memo.
    const reader = new ArchiveStateReader(root, readNode, () => undefined, 64);
    for (let i = 0; i <= 42; i++) {
      const a = addr(i);
      const want = await sm.getAccount(a);
      const got = reader.account(big(a));
      assert.equal(got?.nonce, want?.nonce, `nonce ${i}`);
      assert.equal(got?.balance, want?.balance, `balance ${i}`);
      assert.equal(got?.storageEmpty, want === undefined ? undefined : i % 5 !== 0, `storageEmpty ${i}`);
      if (got)
        assert.deepEqual(new Uint8Array(reader.code(got.codeHash)), new Uint8Array(await sm.getCode(a)), `code ${i}`);
      for (const s of [0, 3, 19, 25]) {
        const v = await sm.getStorage(a, slot(s));
        const want = v.length ? BigInt('0x' + Buffer.from(v).toString('hex')) : 0n;
        assert.equal(reader.storage(big(a), BigInt(s)), want, `storage ${i}/${s}`);
        assert.equal(reader.storage(big(a), BigInt(s)), want, `storage ${i}/${s} (memo)`);
      }
    }
  });

  it('answers block hashes from its source and zeros outside it', () => {
    const h = new Uint8Array(32).fill(7);
    const reader = new ArchiveStateReader(root, readNode, (n) => (n === 5n ? h : undefined));
    assert.deepEqual(reader.blockHash(5n), h);
    assert.deepEqual(reader.blockHash(6n), new Uint8Array(32));
  });

  it("a root whose nodes are not stored fails with geth's missing trie node error", () => {
    const reader = new ArchiveStateReader(new Uint8Array(32).fill(9), readNode, () => undefined);
    assert.throws(() => reader.account(1n), MissingTrieNodeError);
  });
});
