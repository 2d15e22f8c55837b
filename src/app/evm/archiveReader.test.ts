import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Address } from '@ethereumjs/util';
import {
  type ArchiveFixture,
  fixtureAddress as addr,
  fixtureSlot as slot,
  openArchiveFixture,
} from '../../../test/helpers/archiveState.ts';
import type { KvStore } from '../../store/kv.ts';
import { trieKey } from '../../store/schema.ts';
import type { StateDb } from '../state/stateDb.ts';
import { MissingTrieNodeError } from '../../primitives/trie/read.ts';
import { ArchiveStateReader } from './archiveReader.ts';
import { executionState } from '../../../test/helpers/ethereumjsState.ts';

const big = (a: Address) => BigInt('0x' + Buffer.from(a.bytes).toString('hex'));

describe('ArchiveStateReader', () => {
  let fixture: ArchiveFixture;
  let kv: KvStore;
  let db: StateDb;
  let root: Uint8Array;
  const readNode = (k: Uint8Array) => kv.get(trieKey(k));

  before(async () => {
    fixture = await openArchiveFixture();
    ({ kv, db, root } = fixture);
  });
  after(() => fixture.close());

  it('reads the accounts, code and storage the async state manager reads at the same root', async () => {
    const sm = executionState(db, root);
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
