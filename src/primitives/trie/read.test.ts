// The one trie reader: values and absences against the tries TrieUpdate builds, each node read from the source once
// however many keys pass through it, geth's missing-node text, and bytes that are not a trie node refused by name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bytesToHex } from '../hex.ts';
import { EMPTY_TRIE_ROOT, keccak256 } from '../hash.ts';
import { rlpEncode } from '../rlp.ts';
import { MalformedTrieNodeError, MissingTrieNodeError, TrieReader, trieGet, trieProve } from './read.ts';
import { TrieUpdate } from './update.ts';

/** A trie of `n` hashed keys (value i+1 at keccak(i)) committed to a map; its root and the map's source. */
function build(n: number): { root: Uint8Array; store: Map<string, Uint8Array>; keys: Uint8Array[] } {
  const store = new Map<string, Uint8Array>();
  const t = new TrieUpdate(EMPTY_TRIE_ROOT, (k) => store.get(bytesToHex(k)), keccak256);
  const keys = Array.from({ length: n }, (_, i) => keccak256(Uint8Array.of(i >> 8, i & 0xff)));
  keys.forEach((k, i) => t.put(k, rlpEncode(Uint8Array.of(i + 1))));
  const root = t.commit((h, rlp) => store.set(bytesToHex(h), rlp));
  return { root, store, keys };
}

describe('TrieReader', () => {
  it('reads every value and nothing for absent keys, loading each node once', () => {
    const { root, store, keys } = build(500);
    let loads = 0;
    const reader = new TrieReader(root, (k) => {
      loads++;
      return store.get(bytesToHex(k));
    });
    keys.forEach((k, i) => assert.deepEqual(reader.get(k), rlpEncode(Uint8Array.of(i + 1))));
    assert.equal(reader.get(keccak256(Uint8Array.of(9, 9, 9))), undefined);
    const first = loads;
    keys.forEach((k) => reader.get(k));
    assert.equal(loads, first, 'a second pass reads nothing from the source');
    assert.ok(first <= store.size, `${first} loads for ${store.size} stored nodes`);
  });

  it('proves a value and an absence with nodes that hash up to the root', () => {
    const { root, store, keys } = build(64);
    const source = (k: Uint8Array): Uint8Array | undefined => store.get(bytesToHex(k));
    const { value, proof } = trieProve(source, root, Uint8Array.of(0, 5));
    assert.deepEqual(value, rlpEncode(Uint8Array.of(6)));
    assert.deepEqual(keccak256(proof[0]!), root);
    // A proof is a node source of its own: the value reads back from its nodes alone.
    const proofNodes = new Map(proof.map((n) => [bytesToHex(keccak256(n)), n]));
    assert.deepEqual(
      trieGet((k) => proofNodes.get(bytesToHex(k)), root, Uint8Array.of(0, 5)),
      value,
    );
    const absent = trieProve(source, root, Uint8Array.of(7, 7));
    assert.equal(absent.value, undefined);
    assert.ok(absent.proof.length > 0);
    assert.equal(trieGet(source, EMPTY_TRIE_ROOT, keys[0]!), undefined);
  });

  it("fails with geth's missing trie node text when the source lacks a node", () => {
    const root = keccak256(Uint8Array.of(1));
    assert.throws(
      () => trieGet(() => undefined, root, Uint8Array.of(1)),
      (e: unknown) =>
        e instanceof MissingTrieNodeError &&
        e.message ===
          `missing trie node ${bytesToHex(root).slice(2)} (path ) state ${bytesToHex(root)} is not available`,
    );
  });

  it('refuses bytes that are not a trie node', () => {
    const root = keccak256(Uint8Array.of(2));
    const cases: Uint8Array[] = [
      rlpEncode(Uint8Array.of(1, 2, 3)), // a string, not a list
      rlpEncode([Uint8Array.of(0x20), Uint8Array.of(1), Uint8Array.of(2)]), // three items
      rlpEncode([Uint8Array.of(0x50), Uint8Array.of(1)]), // no hex-prefix flag
      rlpEncode([Uint8Array.of(0x00), Uint8Array.of(1, 2, 3)]), // an extension to a 3-byte "hash"
      rlpEncode([...Array.from({ length: 16 }, () => Uint8Array.of(7)), new Uint8Array(0)]), // 1-byte children
    ];
    for (const node of cases) {
      assert.throws(() => new TrieReader(root, () => node).get(new Uint8Array(32)), MalformedTrieNodeError);
    }
  });
});
