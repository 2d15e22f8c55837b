// StateView and proveAccount against ethereumjs (the devDependency oracle) on a state ethereumjs itself committed:
// every account field, code and storage word read, and every account and storage proof node for node, present and
// absent keys alike; and the proof walk on a trie with embedded nodes (short keys sharing long prefixes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMerkleProof, MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, bytesToBigInt, ValueEncoding } from '@ethereumjs/util';
import { bytesToHex } from '../../primitives/hex.ts';
import {
  fixtureAddress,
  fixtureSlot,
  openArchiveFixture,
  type ArchiveFixture,
} from '../../../test/helpers/archiveState.ts';
import { proveAccount } from './proof.ts';
import { trieProve } from '../../primitives/trie/read.ts';
import { executionState } from '../../../test/helpers/ethereumjsState.ts';

/** The proof as Kestrel built it on ethereumjs before (createMerkleProof over the state manager's tries). */
async function ethjsProof(sm: MerkleStateManager, address: Address, slots: Uint8Array[]) {
  const tries = sm as unknown as {
    _trie: MerklePatriciaTrie;
    _getStorageTrie(a: Address, acc: unknown): MerklePatriciaTrie;
  };
  const account = await sm.getAccount(address);
  const accountProof = (await createMerkleProof(tries._trie, address.bytes)).map(bytesToHex);
  if (!account) return { account, accountProof, storage: slots.map(() => ({ value: 0n, proof: [] as string[] })) };
  const trie = tries._getStorageTrie(address, account);
  const storage = [];
  for (const slot of slots) {
    const proof = (await createMerkleProof(trie, slot)).map(bytesToHex);
    storage.push({ value: bytesToBigInt(await sm.getStorage(address, slot)), proof });
  }
  return { account, accountProof, storage };
}

describe('StateView and proofs against ethereumjs', () => {
  let fx: ArchiveFixture;
  before(async () => {
    fx = await openArchiveFixture();
  });
  after(() => fx.close());

  // Accounts 1..40 exist (every fifth with code and storage); 0 and 41..44 do not.
  const addresses = Array.from({ length: 45 }, (_, i) => fixtureAddress(i));
  const slots = Array.from({ length: 22 }, (_, i) => fixtureSlot(i));

  it('reads every account, code and storage word as the state manager does', async () => {
    const sm = executionState(fx.db, fx.root);
    const view = fx.db.readView(fx.root);
    for (const a of addresses) {
      const want = await sm.getAccount(a);
      const got = view.account(a.bytes);
      if (want === undefined) {
        assert.equal(got, undefined);
      } else {
        assert.ok(got);
        assert.deepEqual(
          [got.nonce, got.balance, bytesToHex(got.storageRoot), bytesToHex(got.codeHash), bytesToHex(got.rlp)],
          [
            want.nonce,
            want.balance,
            bytesToHex(want.storageRoot),
            bytesToHex(want.codeHash),
            bytesToHex(want.serialize()),
          ],
        );
      }
      assert.equal(bytesToHex(view.code(a.bytes)), bytesToHex(await sm.getCode(a)));
      for (const s of slots) {
        const word = new Uint8Array(32);
        if (want !== undefined) {
          const v = await sm.getStorage(a, s);
          word.set(v, 32 - v.length);
        }
        assert.equal(bytesToHex(view.storage(a.bytes, s)), bytesToHex(word));
      }
    }
  });

  it('proves every account and slot with the nodes ethereumjs gives, in its order', async () => {
    const sm = executionState(fx.db, fx.root);
    const view = fx.db.readView(fx.root);
    let nodes = 0;
    for (const a of addresses) {
      const want = await ethjsProof(sm, a, slots);
      const got = proveAccount(view, a.bytes, slots);
      assert.deepEqual(got.accountProof.map(bytesToHex), want.accountProof, `account proof of ${a}`);
      assert.equal(got.nonce, want.account?.nonce ?? 0n);
      assert.equal(got.balance, want.account?.balance ?? 0n);
      assert.deepEqual(
        got.storageProof.map((p) => ({ value: p.value, proof: p.proof.map(bytesToHex) })),
        want.storage,
        `storage proofs of ${a}`,
      );
      nodes += got.accountProof.length + got.storageProof.reduce((n, p) => n + p.proof.length, 0);
    }
    assert.ok(nodes > 500, 'the fixture gives proofs of some depth');
  });

  it('collects embedded nodes on the path as ethereumjs does (unhashed keys sharing prefixes)', async () => {
    const buf = fx.db.bufferedDb();
    const trie = new MerklePatriciaTrie({ db: buf, valueEncoding: ValueEncoding.Bytes });
    const keys = ['a', 'ab', 'abc', 'abd', 'b', 'ba', 'bab', 'c'.repeat(40), 'c'.repeat(39) + 'd'].map((k) =>
      new TextEncoder().encode(k),
    );
    for (const [i, k] of keys.entries()) await trie.put(k, Uint8Array.of(i + 1));
    const readNode = (k: Uint8Array) => buf.getSync(k);
    const identity = (k: Uint8Array) => k;
    let embedded = 0;
    for (const k of [...keys, new TextEncoder().encode('abe'), new TextEncoder().encode('zz')]) {
      const want = (await createMerkleProof(trie, k)).map(bytesToHex);
      const got = trieProve(readNode, trie.root(), k, identity);
      assert.deepEqual(got.proof.map(bytesToHex), want, new TextDecoder().decode(k));
      assert.equal(
        got.value === undefined ? undefined : bytesToHex(got.value),
        await trie.get(k).then((v) => (v ? bytesToHex(v) : undefined)),
      );
      embedded += got.proof.filter((p) => p.length < 32).length;
    }
    assert.ok(embedded > 0, 'some proofs go through embedded nodes');
  });
});
