// The RLP codec and the one-pass trie root against @ethereumjs/rlp and @ethereumjs/mpt (devDependency oracles).
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { initKeccak, keccak256 } from '../keccak.ts';
import { RlpError, rlpDecode, rlpEncode, type RlpItem } from '../rlp.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../hash.ts';
import { trieRoot } from './root.ts';
import { bigintToFixedBytes } from '../bytes.ts';
import { encodeAccount, stateRoot, storageRoot, type AccountState } from './stateRoot.ts';
import { prng } from '../../../test/helpers/random.ts';

function randomBytes(next: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
  return out;
}

function randomItem(next: () => number, depth: number): RlpItem {
  if (depth > 3 || next() < 0.6) {
    const lengths = [0, 1, 1, 2, 31, 55, 56, 57, 300, 70000];
    return randomBytes(next, lengths[Math.floor(next() * lengths.length)]!);
  }
  const n = Math.floor(next() * 6);
  return Array.from({ length: n }, () => randomItem(next, depth + 1));
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

before(async () => {
  await initKeccak();
});

describe('rlp', () => {
  test('encodes like @ethereumjs/rlp and decodes back', () => {
    const next = prng(7);
    for (let i = 0; i < 400; i++) {
      const item = randomItem(next, 0);
      const ours = rlpEncode(item);
      assert.equal(hex(ours), hex(RLP.encode(item as never)));
      assert.deepEqual(rlpDecode(ours), item);
    }
  });

  test('refuses non-canonical and malformed input with a typed kind', () => {
    const cases: Array<[string, string]> = [
      ['8100', 'non_canonical_byte'], // one byte < 0x80 must encode as itself
      ['b80141', 'non_canonical_size'], // long form for a short string
      ['b900020102', 'non_canonical_size'], // leading zero in the length
      ['83aabb', 'truncated'],
      ['c3aabb', 'truncated'],
      ['8001', 'trailing'],
      ['c2820102', 'truncated'], // child runs past its list
    ];
    for (const [input, kind] of cases) {
      assert.throws(
        () => rlpDecode(Buffer.from(input, 'hex')),
        (e: unknown) => e instanceof RlpError && e.kind === kind,
        input,
      );
    }
  });
});

describe('account leaf', () => {
  test('encodes like @ethereumjs/rlp of the minimal integers and the two hashes', () => {
    const next = prng(11);
    const edges = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 64n, 10n ** 24n];
    const values = [
      ...edges,
      2n ** 256n - 1n,
      ...Array.from({ length: 200 }, () => BigInt('0x' + hex(randomBytes(next, 1 + Math.floor(next() * 32))))),
    ];
    for (const [i, nonce] of values.entries()) {
      const balance = values[(i * 7 + 3) % values.length]!;
      const root = randomBytes(next, 32);
      const code = randomBytes(next, 32);
      const min = (v: bigint) =>
        v === 0n
          ? new Uint8Array(0)
          : Buffer.from(v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0'), 'hex');
      assert.equal(
        hex(encodeAccount(nonce, balance, root, code)),
        hex(RLP.encode([min(nonce), min(balance), root, code])),
        `${nonce} ${balance}`,
      );
    }
    assert.throws(() => encodeAccount(2n ** 256n, 0n, EMPTY_TRIE_ROOT, EMPTY_CODE_HASH), RangeError);
    assert.throws(() => encodeAccount(-1n, 0n, EMPTY_TRIE_ROOT, EMPTY_CODE_HASH), RangeError);
  });
});

describe('trie root', () => {
  test('the empty trie', () => {
    assert.equal(hex(trieRoot([])), hex(keccak256(rlpEncode(new Uint8Array(0)))));
    assert.equal(hex(EMPTY_TRIE_ROOT), hex(new MerklePatriciaTrie().root()));
    assert.equal(hex(EMPTY_CODE_HASH), hex(keccak256(new Uint8Array(0))));
  });

  test('matches @ethereumjs/mpt on random maps (variable-length keys, prefixes, tiny and large values)', async () => {
    const next = prng(99);
    for (let round = 0; round < 120; round++) {
      const n = [1, 2, 3, 5, 17, 100, 600][round % 7]!;
      const map = new Map<string, Uint8Array>();
      for (let i = 0; i < n; i++) {
        // Short keys from a small alphabet make shared prefixes, keys that prefix others and embedded nodes.
        const key = randomBytes(next, 1 + Math.floor(next() * (round % 2 === 0 ? 3 : 32))).map((b) => b & 0x13);
        const value = randomBytes(next, 1 + Math.floor(next() * (next() < 0.5 ? 4 : 80)));
        map.set(hex(key), value);
      }
      const oracle = new MerklePatriciaTrie();
      for (const [k, v] of map) await oracle.put(Buffer.from(k, 'hex'), v);
      const ours = trieRoot([...map].map(([k, v]) => [Uint8Array.from(Buffer.from(k, 'hex')), v] as const));
      assert.equal(hex(ours), hex(oracle.root()), `round ${round} (${map.size} keys)`);
    }
  });

  test('matches @ethereumjs/mpt with long keys (hex-prefixed paths of 56 bytes and more)', async () => {
    const next = prng(5);
    for (const n of [1, 2, 9, 40]) {
      const map = new Map<string, Uint8Array>();
      // A shared 120-byte stem: extensions and leaves whose paths need a long RLP string header.
      const stem = randomBytes(next, 120);
      for (let i = 0; i < n; i++) {
        const key = Uint8Array.from([...stem.subarray(0, 60 + (i % 3) * 30), ...randomBytes(next, 1 + (i % 70))]);
        map.set(hex(key), randomBytes(next, 1 + (i % 50)));
      }
      const oracle = new MerklePatriciaTrie();
      for (const [k, v] of map) await oracle.put(Buffer.from(k, 'hex'), v);
      const ours = trieRoot([...map].map(([k, v]) => [Uint8Array.from(Buffer.from(k, 'hex')), v] as const));
      assert.equal(hex(ours), hex(oracle.root()), `${n} keys`);
    }
  });

  test('state root matches a secure @ethereumjs/mpt built account by account', async () => {
    const next = prng(5);
    for (let round = 0; round < 20; round++) {
      const accounts = new Map<bigint, AccountState>();
      const oracle = new MerklePatriciaTrie({ useKeyHashing: true });
      for (let i = 0; i < 1 + round * 3; i++) {
        const address = BigInt('0x' + hex(randomBytes(next, 20)));
        const storage = new Map<bigint, bigint>();
        const storageOracle = new MerklePatriciaTrie({ useKeyHashing: true });
        for (let j = 0; j < Math.floor(next() * 12); j++) {
          const slot = next() < 0.5 ? BigInt(j) : BigInt('0x' + hex(randomBytes(next, 32)));
          const value = next() < 0.2 ? 0n : BigInt('0x' + hex(randomBytes(next, 1 + Math.floor(next() * 32))));
          storage.set(slot, value);
          if (value === 0n) await storageOracle.del(bigintToFixedBytes(slot, 32));
          else await storageOracle.put(bigintToFixedBytes(slot, 32), RLP.encode(value));
        }
        const account: AccountState = {
          nonce: BigInt(Math.floor(next() * 3)),
          balance: next() < 0.3 ? 0n : BigInt('0x' + hex(randomBytes(next, 12))),
          codeHash: next() < 0.5 ? EMPTY_CODE_HASH : keccak256(randomBytes(next, 40)),
          storage,
        };
        accounts.set(address, account);
        assert.equal(hex(storageRoot(storage)), hex(storageOracle.root()));
        await oracle.put(
          bigintToFixedBytes(address, 20),
          encodeAccount(account.nonce, account.balance, storageOracle.root(), account.codeHash),
        );
      }
      assert.equal(hex(stateRoot(accounts)), hex(oracle.root()), `round ${round}`);
    }
  });
});
