// Memory's word reads and writes (its own DataView) and wordAt (through the scratch word) against a hex round trip,
// at the edges of their branches: 2^48 (storeWord's one-double path), 2^53, 2^128 and 2^192 (wordOfView's lanes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wordAt } from '../../primitives/bytes.ts';
import { Memory } from './memory.ts';

function hexWord(v: bigint): string {
  return v.toString(16).padStart(64, '0');
}

const values: bigint[] = [0n, 1n];
for (const b of [8n, 32n, 48n, 53n, 64n, 96n, 128n, 160n, 192n, 224n, 255n]) values.push((1n << b) - 1n, 1n << b);
values.push((1n << 256n) - 1n);
let x = 0x9e3779b97f4a7c15n;
for (let i = 0; i < 300; i++) {
  x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 256n) - 1n);
  values.push(x >> BigInt(i % 256));
}

describe('Memory words', () => {
  it('storeWord writes 32 big-endian bytes and loadWord and wordAt read them back', () => {
    const m = new Memory();
    m.grow(4096);
    for (const [i, v] of values.entries()) {
      const off = (i * 37) % 4000;
      m.buf.fill(0xaa, off, off + 32);
      m.storeWord(off, v);
      assert.equal(Buffer.from(m.buf.subarray(off, off + 32)).toString('hex'), hexWord(v), `store ${v}`);
      assert.equal(m.loadWord(off), v, `load ${v}`);
      assert.equal(wordAt(m.buf, off), v, `wordAt ${v}`);
    }
  });

  it('keeps writing to the current buffer after growing past its first capacity', () => {
    const m = new Memory();
    m.grow(64);
    m.storeWord(0, 5n);
    m.grow(5000);
    m.storeWord(4900, (1n << 255n) + 7n);
    assert.equal(m.loadWord(0), 5n);
    assert.equal(m.loadWord(4900), (1n << 255n) + 7n);
    assert.equal(wordAt(m.buf, 4900), (1n << 255n) + 7n);
  });

  it('wordAt zero-pads a word read past the end of its bytes', () => {
    const b = Uint8Array.from([1, 2, 3]);
    assert.equal(wordAt(b, 1), 0x0203n << 240n);
    assert.equal(wordAt(b, 5), 0n);
  });
});
