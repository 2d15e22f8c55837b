// The batch trie update against ethereumjs' trie: the same root after inserts, updates and deletes (branches
// collapsing into extensions and leaves), over several commits that build on each other's stored nodes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { bytesToHex } from '../hex.ts';
import { EMPTY_TRIE_ROOT, keccak256 } from '../hash.ts';
import { TrieUpdate } from './update.ts';
import { mulberry32 } from '../../../test/helpers/random.ts';

describe('TrieUpdate', () => {
  it('matches ethereumjs roots through inserts, updates and deletes', async () => {
    const next = mulberry32(7);
    const ref = new MerklePatriciaTrie();
    const store = new Map<string, Uint8Array>();
    const readNode = (k: Uint8Array) => store.get(bytesToHex(k));
    let root: Uint8Array = EMPTY_TRIE_ROOT;
    const live: Uint8Array[] = [];
    for (let round = 0; round < 6; round++) {
      const t = new TrieUpdate(root, readNode, keccak256);
      for (let i = 0; i < 150; i++) {
        const op = next() % 10;
        if (op < 3 && live.length > 0) {
          const [key] = live.splice(next() % live.length, 1);
          t.put(key!, new Uint8Array(0));
          await ref.del(key!);
        } else if (op < 5 && live.length > 0) {
          const key = live[next() % live.length]!;
          const value = Uint8Array.of(next() & 0xff, 1, 2);
          t.put(key, value);
          await ref.put(key, value);
        } else {
          const key = keccak256(Uint8Array.of(round, i, next() & 0xff));
          // Short values make small nodes, which are embedded in their parents.
          const value = next() % 2 ? Uint8Array.of(next() & 0x7f) : new Uint8Array(40).fill(next() & 0xff);
          t.put(key, value);
          await ref.put(key, value);
          live.push(key);
        }
        // Deleting a key that is not there changes nothing.
        t.put(keccak256(Uint8Array.of(0xff, round, i)), new Uint8Array(0));
      }
      root = t.commit((h, rlp) => store.set(bytesToHex(h), rlp));
      assert.equal(bytesToHex(root), bytesToHex(ref.root()), `round ${round}`);
      for (const key of live.slice(0, 20)) {
        assert.deepEqual(new TrieUpdate(root, readNode, keccak256).get(key), await ref.get(key));
      }
    }
    // Everything deleted: the empty root.
    const t = new TrieUpdate(root, readNode, keccak256);
    for (const key of live) t.put(key, new Uint8Array(0));
    assert.equal(bytesToHex(t.commit(() => {})), bytesToHex(EMPTY_TRIE_ROOT));
  });

  it('a fork updates without changing what the trie it came from reads', () => {
    const store = new Map<string, Uint8Array>();
    const readNode = (k: Uint8Array) => store.get(bytesToHex(k));
    const keys = Array.from({ length: 200 }, (_, i) => keccak256(Uint8Array.of(i)));
    const base = new TrieUpdate(EMPTY_TRIE_ROOT, readNode, keccak256);
    for (const [i, k] of keys.entries()) base.put(k, new Uint8Array(40).fill(i));
    const root = base.commit((h, rlp) => store.set(bytesToHex(h), rlp));

    const parent = new TrieUpdate(root, readNode, keccak256);
    for (const k of keys.slice(0, 100)) parent.get(k); // loads part of the tree, as a block's reads do
    const fork = parent.fork();
    for (const [i, k] of keys.entries()) {
      if (i % 3 === 0) fork.put(k, new Uint8Array(0));
      else if (i % 3 === 1) fork.put(k, new Uint8Array(40).fill(255 - i));
    }
    fork.put(keccak256(Uint8Array.of(1, 2, 3)), Uint8Array.of(9));
    const forkRoot = fork.commit((h, rlp) => store.set(bytesToHex(h), rlp));
    for (const [i, k] of keys.entries()) assert.deepEqual(parent.get(k), new Uint8Array(40).fill(i), `parent ${i}`);
    assert.equal(bytesToHex(parent.commit(() => {})), bytesToHex(root));

    // The same updates on a trie loaded from the store alone: same root.
    const alone = new TrieUpdate(root, readNode, keccak256);
    for (const [i, k] of keys.entries()) {
      if (i % 3 === 0) alone.put(k, new Uint8Array(0));
      else if (i % 3 === 1) alone.put(k, new Uint8Array(40).fill(255 - i));
    }
    alone.put(keccak256(Uint8Array.of(1, 2, 3)), Uint8Array.of(9));
    assert.equal(bytesToHex(alone.commit(() => {})), bytesToHex(forkRoot));
  });

  it('puts after a fork or a commit leave the forked and committed tries as they were', () => {
    const store = new Map<string, Uint8Array>();
    const readNode = (k: Uint8Array) => store.get(bytesToHex(k));
    const save = (h: Uint8Array, rlp: Uint8Array) => void store.set(bytesToHex(h), rlp);
    const keys = Array.from({ length: 300 }, (_, i) => keccak256(Uint8Array.of(i, i >> 8)));
    const rootOf = (entries: Array<[Uint8Array, Uint8Array]>) => {
      const t = new TrieUpdate(EMPTY_TRIE_ROOT, readNode, keccak256);
      for (const [k, v] of entries) t.put(k, v);
      return bytesToHex(t.commit(save));
    };
    const first = keys.slice(0, 200).map((k, i): [Uint8Array, Uint8Array] => [k, new Uint8Array(40).fill(i)]);
    const second = keys.map((k, i): [Uint8Array, Uint8Array] => [k, new Uint8Array(40).fill(i ^ 0x55)]);
    const third = keys.slice(100).map((k, i): [Uint8Array, Uint8Array] => [k, new Uint8Array(36).fill(i)]);

    // Uncommitted puts, then a fork: each side's later puts (in place on the nodes it made) stay its own.
    const a = new TrieUpdate(EMPTY_TRIE_ROOT, readNode, keccak256);
    for (const [k, v] of first) a.put(k, v);
    const b = a.fork();
    for (const [k, v] of second) a.put(k, v);
    for (const [k, v] of third) b.put(k, v);
    assert.equal(bytesToHex(a.commit(save)), rootOf([...first, ...second]));
    assert.equal(bytesToHex(b.commit(save)), rootOf([...first, ...third]));

    // A committed trie handed on (as a block's tries are to the next block's reader): its fork's puts and its own
    // later puts do not reach each other.
    const c = new TrieUpdate(EMPTY_TRIE_ROOT, readNode, keccak256);
    for (const [k, v] of first) c.put(k, v);
    const committed = bytesToHex(c.commit(save));
    const d = c.fork();
    for (const [k, v] of second) d.put(k, v);
    assert.equal(bytesToHex(c.commit(save)), committed);
    for (const [k, v] of third) c.put(k, v);
    assert.equal(bytesToHex(d.commit(save)), rootOf([...first, ...second]));
    assert.equal(bytesToHex(c.commit(save)), rootOf([...first, ...third]));
  });
});
