import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { initKeccak, keccak256 } from '../keccak.ts';
import { indexedTrieRoot } from './root.ts';

async function reference(values: Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!);
  return trie.root();
}

describe('indexedTrieRoot', () => {
  before(() => initKeccak());

  for (const n of [0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 300, 1000]) {
    test(`matches the ethereumjs MPT for ${n} values`, async () => {
      // Mixed sizes: short values get embedded in their parent node, long ones are hashed.
      const values = Array.from({ length: n }, (_, i) => new Uint8Array(randomBytes(i % 3 === 0 ? 4 : 100)));
      assert.deepEqual(indexedTrieRoot(values), await reference(values));
    });
  }

  test('with the WebAssembly keccak the roots are the same, and the hash passed in is the one used', async () => {
    const wasm = keccak256;
    let calls = 0;
    const counted = (d: Uint8Array) => {
      calls++;
      return wasm(d);
    };
    for (const n of [0, 1, 17, 300]) {
      const values = Array.from({ length: n }, (_, i) => new Uint8Array(randomBytes(i % 3 === 0 ? 4 : 100)));
      assert.deepEqual(indexedTrieRoot(values, counted), await reference(values));
    }
    assert.ok(calls > 4, `${calls} hashes through the given function`);
  });
});
