// modexp (0x05): EIP-2565 gas at the edges, results against plain BigInt, and headers whose lengths are
// far beyond the input (priced, never allocated); Osaka's EIP-7883 gas and EIP-7823 bounds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bigintToFixedBytes, bytesToBigint, concatBytes as cat } from '../../primitives/bytes.ts';
import { Rng } from './inputs.testing.ts';
import { modexp, modexpGas, modPow } from './modexp.ts';

const w = (x: bigint | number) => bigintToFixedBytes(BigInt(x), 32);
const header = (b: bigint | number, e: bigint | number, m: bigint | number) => cat(w(b), w(e), w(m));

function reference(base: bigint, exp: bigint, mod: bigint): bigint {
  if (mod === 0n) return 0n;
  let r = 1n % mod;
  let b = base % mod;
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) r = (r * b) % mod;
    b = (b * b) % mod;
  }
  return r;
}

test('gas: EIP-2565 floor, exponent head and tail, words of max(base, mod)', () => {
  assert.equal(modexpGas(new Uint8Array(0), 'Prague'), 200n);
  assert.equal(modexpGas(cat(header(32, 32, 32), new Uint8Array(32), w(0), new Uint8Array(32)), 'Prague'), 200n);
  // 64-byte exponent with a zero head: 8·32 iterations, 16 complexity → 1365.
  assert.equal(modexpGas(cat(header(32, 64, 32), new Uint8Array(32), new Uint8Array(64)), 'Prague'), 1365n);
  // Head 0x80…: bit length 256 → 255 + 8·32 iterations.
  const head = new Uint8Array(64);
  head[0] = 0x80;
  assert.equal(modexpGas(cat(header(32, 64, 32), new Uint8Array(32), head), 'Prague'), (16n * (255n + 256n)) / 3n);
  // 2048-bit everything with a full exponent: 698,709 (REFERENCE-ENGINE.md §8).
  assert.equal(
    modexpGas(cat(header(256, 256, 256), new Uint8Array(256), new Uint8Array(256).fill(0xff)), 'Prague'),
    698709n,
  );
  // Huge lengths price in bigint: no overflow, no allocation.
  const huge = 2n ** 255n;
  assert.equal(modexpGas(header(huge, 0, 0), 'Prague'), ((huge / 8n) * (huge / 8n)) / 3n);
  assert.equal(modexpGas(header(0, huge, 0), 'Prague'), 200n); // zero complexity
  assert.equal(modexpGas(header(1, huge, 1), 'Prague'), (8n * (huge - 32n)) / 3n);
});

test('results: mod 0 gives zeros, mod 1 gives zero, short inputs are zero-padded', () => {
  assert.deepEqual(modexp(cat(header(1, 1, 3), new Uint8Array([5, 3])), 'Prague'), new Uint8Array(3));
  assert.deepEqual(modexp(cat(header(1, 1, 1), new Uint8Array([5, 3, 1])), 'Prague'), new Uint8Array(1));
  assert.deepEqual(modexp(header(0, 0, 0), 'Prague'), new Uint8Array(0));
  // Base, exponent and modulus all absent from the input: mod 0.
  assert.deepEqual(modexp(header(1, 1, 1), 'Prague'), new Uint8Array(1));
  // 0^0 = 1 (mod 10).
  assert.deepEqual(modexp(cat(header(0, 0, 1), new Uint8Array([10])), 'Prague'), new Uint8Array([1]));
  // The modulus runs past the input: 0x0a00 (zero-padded on the right).
  assert.deepEqual(modexp(cat(header(1, 1, 2), new Uint8Array([3, 2, 0x0a])), 'Prague'), bigintToFixedBytes(9n, 2));
});

test('results against BigInt square-and-multiply on seeded inputs', () => {
  const rng = new Rng(7);
  for (let i = 0; i < 300; i++) {
    const [bl, el, ml] = [rng.int(70), rng.int(70), 1 + rng.int(70)];
    const b = rng.bytes(bl);
    const e = rng.bytes(el);
    const m = rng.bytes(ml);
    const got = modexp(cat(header(bl, el, ml), b, e, m), 'Prague')!;
    assert.equal(bytesToBigint(got), reference(bytesToBigint(b), bytesToBigint(e), bytesToBigint(m)), `case ${i}`);
    assert.equal(got.length, ml);
  }
});

test('an exponent longer than the input costs squarings over its implicit zero tail, not an allocation', () => {
  // Exponent 0x01 followed by 99,999 zero bytes; the modulus lies past the input too, so it is 0.
  assert.deepEqual(modexp(cat(header(1, 100000, 3), new Uint8Array([3, 1])), 'Prague'), new Uint8Array(3));
  // 3^(2^16) mod 1,000,003 with the exponent written out, and as one byte plus two implicit zero bytes.
  const withMod = cat(header(1, 3, 3), new Uint8Array([3, 1, 0, 0]), new Uint8Array([0x0f, 0x42, 0x43]));
  assert.equal(bytesToBigint(modexp(withMod, 'Prague')!), reference(3n, 1n << 16n, 0x0f4243n));
  assert.equal(modPow(3n, new Uint8Array([1]), 2, 0x0f4243n), reference(3n, 1n << 16n, 0x0f4243n));
  // Paid-for long tail: 2^(8·20000) squarings of a 3-byte value finish quickly.
  const start = performance.now();
  modPow(3n, new Uint8Array([1]), 20000, 0x0f4243n);
  assert.ok(performance.now() - start < 2000);
});

test('huge header lengths with a zero modulus length answer empty at once', () => {
  const start = performance.now();
  assert.deepEqual(modexp(header(2n ** 255n, 2n ** 255n, 0), 'Prague'), new Uint8Array(0));
  assert.ok(performance.now() - start < 50);
});

test('EIP-7883 gas (Osaka): floor 500, complexity 16 up to 32 bytes then 2·⌈len/8⌉², 16 iterations a byte', () => {
  assert.equal(modexpGas(new Uint8Array(0), 'Osaka'), 500n);
  // 32-byte operands, exponent 3 (bit length 2 → 1 iteration): 16 × 1 → the floor.
  assert.equal(modexpGas(cat(header(32, 1, 32), new Uint8Array(32), new Uint8Array([3])), 'Osaka'), 500n);
  // 64-byte exponent with a zero head: 16·32 = 512 iterations × 16 = 8192 (Prague: 1365).
  const zeros = cat(header(32, 64, 32), new Uint8Array(32), new Uint8Array(64));
  assert.equal(modexpGas(zeros, 'Osaka'), 8192n);
  assert.equal(modexpGas(zeros, 'Prague'), 1365n);
  // 33-byte modulus: 2·⌈33/8⌉² = 50, exponent 0x010001 (bit length 17 → 16 iterations) → 800.
  const rsa = cat(header(33, 3, 33), new Uint8Array(33), new Uint8Array([1, 0, 1]), new Uint8Array(33));
  assert.equal(modexpGas(rsa, 'Osaka'), 800n);
  // 256-byte operands, full 256-byte exponent: 2·32² × (255 + 16·224) = 7,862,272.
  const big = cat(header(256, 256, 256), new Uint8Array(256), new Uint8Array(256).fill(0xff));
  assert.equal(modexpGas(big, 'Osaka'), 2048n * (255n + 16n * 224n));
  // Huge lengths still price in bigint, and far beyond any gas.
  const huge = 2n ** 255n;
  assert.equal(modexpGas(header(1, huge, 1), 'Osaka'), 16n * 16n * (huge - 32n));
  assert.equal(modexpGas(header(0, huge, 0), 'Osaka'), 16n * 16n * (huge - 32n));
});

test('EIP-7823 (Osaka): a base, exponent or modulus longer than 1024 bytes fails the call; 1024 is fine', () => {
  const ok = cat(header(1024, 1, 1024), new Uint8Array(1024).fill(2), new Uint8Array([3]), new Uint8Array(1024));
  ok[96 + 1024 + 1 + 1023] = 7; // modulus 7 in its last byte
  const out = modexp(ok, 'Osaka')!;
  assert.equal(out.length, 1024);
  assert.equal(bytesToBigint(out), reference(bytesToBigint(ok.subarray(96, 96 + 1024)), 3n, 7n));
  for (const [b, e, m] of [
    [1025, 1, 1],
    [1, 1025, 1],
    [1, 1, 1025],
    [2n ** 255n, 0, 0],
    [0, 2n ** 64n, 0],
  ] as const) {
    const input = header(b, e, m);
    assert.equal(modexp(input, 'Osaka'), undefined, `lengths ${b}, ${e}, ${m}`);
    // Prague has no bound: the same headers run (a zero modulus gives zeros; none is read here).
    if (BigInt(m) <= 1025n) assert.deepEqual(modexp(input, 'Prague'), new Uint8Array(Number(m)));
  }
  // Even with no modulus to compute, an over-long base fails (the bound comes first, as in geth).
  assert.equal(modexp(header(1025, 0, 0), 'Osaka'), undefined);
  assert.deepEqual(modexp(header(1025, 0, 0), 'Prague'), new Uint8Array(0));
});
