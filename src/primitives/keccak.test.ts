// keccak256 and keccakWord (hash-wasm's sha3 module called directly) against @noble/hashes, the test oracle, at
// lengths around the 136-byte rate and hash-wasm's 16-KiB buffer (inputs past it are hashed in chunks), at offsets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToBigint } from './bytes.ts';
import { initKeccak, keccak256, keccakWord } from './keccak.ts';

const LENGTHS = [0, 1, 31, 32, 64, 127, 128, 129, 135, 136, 137, 1000, 16_384, 16_385, 40_000];

function sample(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 197 + seed * 31 + (i >> 8)) & 0xff;
  return b;
}

describe('keccak256', () => {
  it('equals noble keccak_256 at every length around the rate and the buffer size', async () => {
    await initKeccak();
    for (const n of LENGTHS) {
      const data = sample(n, n);
      assert.deepEqual(keccak256(data), keccak_256(data), `length ${n}`);
    }
  });

  it('returns a fresh array each call (a later hash does not change an earlier digest)', async () => {
    await initKeccak();
    const a = keccak256(sample(64, 1));
    const copy = a.slice();
    keccak256(sample(64, 2));
    assert.deepEqual(a, copy);
  });
});

describe('keccakWord', () => {
  it('is the digest of data[off, off+len) as a word, at offsets inside a larger buffer', async () => {
    await initKeccak();
    const buf = sample(50_000, 7);
    for (const len of LENGTHS) {
      for (const off of [0, 3, 4096]) {
        const want = bytesToBigint(keccak_256(buf.subarray(off, off + len)));
        assert.equal(keccakWord(buf, off, len), want, `off ${off} length ${len}`);
      }
    }
  });
});
