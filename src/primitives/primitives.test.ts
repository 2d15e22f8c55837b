import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bech32 } from 'bech32';
import { fromBech32, toBech32 } from './bech32.ts';
import { keccak256, keccakUtf8 } from './hash.ts';
import {
  bigintToBytes,
  bytesEqual,
  bytesToBigint,
  bytesToHex,
  concatBytes,
  hexToBytes,
  padLeft,
  readU64be,
  toQuantity,
  u64be,
} from './hex.ts';

describe('hex helpers', () => {
  test('toQuantity has no leading zeros', () => {
    assert.equal(toQuantity(0n), '0x0');
    assert.equal(toQuantity(0), '0x0');
    assert.equal(toQuantity(1n), '0x1');
    assert.equal(toQuantity(255), '0xff');
    assert.equal(toQuantity(256n), '0x100');
    assert.equal(toQuantity(2n ** 256n - 1n), '0x' + 'f'.repeat(64));
  });

  test('bigintToBytes / bytesToBigint round trip', () => {
    assert.equal(bigintToBytes(0n).length, 0);
    assert.equal(bytesToBigint(new Uint8Array(0)), 0n);
    assert.deepEqual([...bigintToBytes(1n)], [1]);
    assert.deepEqual([...bigintToBytes(256n)], [1, 0]);
    assert.deepEqual([...bigintToBytes(0xabcdefn)], [0xab, 0xcd, 0xef]);
    for (const n of [
      1n,
      127n,
      128n,
      255n,
      256n,
      65535n,
      65536n,
      10n ** 18n,
      2n ** 64n,
      2n ** 255n + 7n,
      2n ** 256n - 1n,
    ]) {
      const b = bigintToBytes(n);
      assert.notEqual(b[0], 0, `minimal encoding for ${n}`);
      assert.equal(bytesToBigint(b), n);
    }
    assert.equal(bytesToBigint(Uint8Array.of(0, 0, 1)), 1n, 'leading zeros are accepted');
  });

  test('bytesToBigint respects subarray offsets', () => {
    const big = Uint8Array.of(0xff, 0x01, 0x02, 0xff);
    assert.equal(bytesToBigint(big.subarray(1, 3)), 0x0102n);
  });

  test('u64be / readU64be', () => {
    assert.deepEqual([...u64be(0n)], [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual([...u64be(1)], [0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual([...u64be(0x0102030405060708n)], [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(readU64be(u64be(2n ** 64n - 1n)), 2n ** 64n - 1n);
    assert.equal(readU64be(concatBytes(Uint8Array.of(9, 9), u64be(42n)), 2), 42n);
    // big-endian keys sort numerically as bytes
    assert.ok(Buffer.compare(u64be(255), u64be(256)) < 0);
  });

  test('bytesToHex / hexToBytes, padLeft, concatBytes, bytesEqual', () => {
    assert.equal(bytesToHex(Uint8Array.of(0, 0xab)), '0x00ab');
    assert.equal(bytesToHex(new Uint8Array(0)), '0x');
    const slab = Uint8Array.from({ length: 64 }, (_, i) => i);
    assert.equal(bytesToHex(slab.subarray(3, 6)), '0x030405', 'a view encodes only its own bytes');
    assert.equal(bytesToHex(slab.subarray(64)), '0x');
    assert.deepEqual([...hexToBytes('0x00ab')], [0, 0xab]);
    assert.deepEqual([...padLeft(Uint8Array.of(1, 2), 4)], [0, 0, 1, 2]);
    assert.deepEqual([...padLeft(Uint8Array.of(1, 2, 3), 2)], [1, 2, 3]);
    assert.deepEqual([...concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3))], [1, 2, 3]);
    assert.ok(bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2)));
    assert.ok(!bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3)));
    assert.ok(!bytesEqual(Uint8Array.of(1), Uint8Array.of(1, 0)));
  });

  test('keccak256', () => {
    assert.equal(
      bytesToHex(keccak256(new Uint8Array(0))),
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    assert.equal(bytesToHex(keccakUtf8('transfer(address,uint256)')).slice(0, 10), '0xa9059cbb');
  });
});

describe('bech32 addresses', () => {
  const addr = hexToBytes('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');

  test('round trip', () => {
    const s = toBech32(addr, 'kestrel');
    assert.match(s, /^kestrel1[02-9ac-hj-np-z]{38}$/);
    assert.deepEqual(fromBech32(s, 'kestrel'), addr);
    const zero = new Uint8Array(20);
    assert.deepEqual(fromBech32(toBech32(zero, 'kestrel'), 'kestrel'), zero);
  });

  test('wrong prefix', () => {
    const s = toBech32(addr, 'cosmos');
    assert.throws(() => fromBech32(s, 'kestrel'), /expected prefix kestrel, got cosmos/);
  });

  test('bad checksum', () => {
    const s = toBech32(addr, 'kestrel');
    const last = s.at(-1) === 'q' ? 'p' : 'q';
    assert.throws(() => fromBech32(s.slice(0, -1) + last, 'kestrel'), /invalid bech32 address/);
    assert.throws(() => fromBech32('not-an-address', 'kestrel'), /invalid bech32 address/);
  });

  test('wrong payload length', () => {
    const s = bech32.encode('kestrel', bech32.toWords(new Uint8Array(32)));
    assert.throws(() => fromBech32(s, 'kestrel'), /32 bytes, want 20/);
  });
});

describe('decodeAccAddress (Cosmos SDK wording)', async () => {
  const { decodeAccAddress, toBech32 } = await import('./bech32.ts');
  const good = toBech32(new Uint8Array(20).fill(7), 'kestrel');
  const cases: Array<[string, string, RegExp]> = [
    ['empty', '', /empty address string is not allowed$/],
    ['mixed case', good.slice(0, 10).toUpperCase() + good.slice(10), /string not all lowercase or all uppercase/],
    ['no separator', 'kestrelqqqqqqqq', /invalid separator index -1/],
    ['bad char', good.slice(0, -2) + 'b' + good.slice(-1), /invalid character not part of charset: 98/],
    ['checksum', good.slice(0, -1) + (good.endsWith('q') ? 'p' : 'q'), /invalid checksum \(expected \w{6} got \w{6}\)/],
    ['prefix', toBech32(new Uint8Array(20), 'cosmos'), /invalid Bech32 prefix; expected kestrel, got cosmos$/],
  ];
  for (const [name, text, re] of cases) test(name, () => assert.throws(() => decodeAccAddress(text, 'kestrel'), re));
  test('round trip, upper case accepted', () => {
    assert.deepEqual(decodeAccAddress(good, 'kestrel'), new Uint8Array(20).fill(7));
    assert.deepEqual(decodeAccAddress(good.toUpperCase(), 'kestrel'), new Uint8Array(20).fill(7));
  });
});
