import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import type { BlockRecord } from '../../store/records.ts';
import type { KestrelApp } from '../app.ts';
import { ChainQuery } from '../query.ts';
import { bytesKey } from './headCache.ts';
import type { StateDb } from './stateDb.ts';

const A = new Uint8Array(20).fill(0xaa);
const SLOT = new Uint8Array(32).fill(0x01);
const CODE = Uint8Array.of(0x60, 0x00);
const CODE_HASH = new Uint8Array(32).fill(0xcc);

/** Account state per state root, and a count of every trie read. */
const roots: Record<string, { balance: bigint; word: number }> = {
  r0: { balance: 1n, word: 3 },
  r1: { balance: 5n, word: 7 },
  r2: { balance: 9n, word: 8 },
};
let trieReads = 0;

function block(n: number, root: string, parent?: BlockRecord): BlockRecord {
  const hash = new Uint8Array(32).fill(n + 1);
  return {
    number: BigInt(n),
    hash,
    header: { stateRoot: Buffer.from(root), parentHash: parent?.hash ?? new Uint8Array(32) },
  } as unknown as BlockRecord;
}

const state = {
  readView(root: Uint8Array) {
    const s = roots[Buffer.from(root).toString()]!;
    return {
      account: () => (
        trieReads++,
        { nonce: 0n, balance: s.balance, codeHash: CODE_HASH, storageRoot: EMPTY_TRIE_ROOT }
      ),
      code: () => (trieReads++, CODE),
      storage: () => (trieReads++, new Uint8Array(32).fill(s.word, 31)),
    };
  },
} as unknown as StateDb;

describe('head state cache (ChainQuery)', () => {
  it('answers latest reads from memory after the first, keeps historical reads exact, and follows applied changes', () => {
    const b0 = block(0, 'r0');
    const b1 = block(1, 'r1', b0);
    const app = { head: b1 } as { head: BlockRecord };
    const q = new ChainQuery(app as unknown as KestrelApp, {} as never, state);

    // First read at the head walks the trie, the second does not.
    assert.equal(q.account(A, b1).balance, 5n);
    const reads = trieReads;
    assert.equal(q.account(A, b1).balance, 5n);
    assert.equal(trieReads, reads);
    assert.equal(q.storage(A, SLOT, b1)[31], 7);
    assert.equal(q.code(A, b1), CODE);
    const afterFill = trieReads;
    assert.equal(q.storage(A, SLOT, b1)[31], 7);
    assert.equal(q.code(A, b1), CODE);
    assert.equal(trieReads, afterFill, 'latest reads after the fill never touch the trie');
    assert.ok(afterFill > reads);

    // Historical reads go to the trie at their own root, every time.
    const before = trieReads;
    assert.equal(q.account(A, b0).balance, 1n);
    assert.equal(q.storage(A, SLOT, b0)[31], 3);
    assert.ok(trieReads > before);

    // The next block's changes are applied at commit: the new head answers from memory, with the new values.
    const b2 = block(2, 'r2', b1);
    app.head = b2;
    const word = new Uint8Array(32);
    word[31] = 8;
    q.applyHeadChanges(b2, [
      {
        address: A,
        deleted: false,
        nonce: 1n,
        balance: 9n,
        codeHash: CODE_HASH,
        storageRoot: EMPTY_TRIE_ROOT,
        storageCleared: false,
        storage: [[SLOT, word]],
      },
    ]);
    const n = trieReads;
    const acc = q.account(A, b2);
    assert.equal(acc.balance, 9n);
    assert.equal(acc.nonce, 1n);
    assert.equal(q.storage(A, SLOT, b2)[31], 8);
    assert.equal(q.code(A, b2), CODE, 'code is kept by hash across heads');
    assert.equal(trieReads, n);
    // b1 is history now: exact, from its own root.
    assert.equal(q.account(A, b1).balance, 5n);
    assert.ok(trieReads > n);
  });

  it('starts over when the head moves without a change list, and drops a deleted account with its storage', () => {
    const b0 = block(0, 'r0');
    const b1 = block(1, 'r1', b0);
    const app = { head: b1 } as { head: BlockRecord };
    const q = new ChainQuery(app as unknown as KestrelApp, {} as never, state);
    q.account(A, b1);
    q.storage(A, SLOT, b1);
    const b2 = block(2, 'r2', b1);
    app.head = b2;
    const n = trieReads;
    assert.equal(q.account(A, b2).balance, 9n);
    assert.ok(trieReads > n, 'a head reached without changes is read from the trie');

    const b3 = block(3, 'r2', b2);
    app.head = b3;
    q.applyHeadChanges(b3, [
      {
        address: A,
        deleted: true,
        nonce: 0n,
        balance: 0n,
        codeHash: CODE_HASH,
        storageRoot: EMPTY_TRIE_ROOT,
        storageCleared: true,
        storage: [],
      },
    ]);
    const m = trieReads;
    q.account(A, b3);
    assert.equal(trieReads, m + 1, 'a deleted account is not answered from memory');
    q.storage(A, SLOT, b3);
    assert.equal(trieReads, m + 2, "nor is a deleted account's storage");
  });
});

describe('bytesKey', () => {
  it('is one latin1 character per byte at every length, so distinct bytes never share a key', () => {
    for (const n of [0, 1, 19, 20, 21, 31, 32, 33, 64]) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 97 + 200) & 0xff);
      assert.equal(bytesKey(b), Buffer.from(b).toString('latin1'));
      // A view into a larger buffer keys only its own bytes.
      const wide = new Uint8Array(n + 8);
      wide.set(b, 5);
      assert.equal(bytesKey(wide.subarray(5, 5 + n)), bytesKey(b));
    }
    const a = new Uint8Array(20).fill(0xff);
    const c = a.slice();
    c[19] = 0xfe;
    assert.notEqual(bytesKey(a), bytesKey(c));
  });
});
