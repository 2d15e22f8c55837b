import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, table } from '../../../test/helpers/codecTable.ts';
import { blockCount, uint256, uint64, uintIndex } from './quantity.ts';

const U64 = (r: string) => fail(`json: cannot unmarshal ${r} into Go value of type hexutil.Uint64`);
const BIG = (r: string) => fail(`json: cannot unmarshal ${r} into Go value of type *hexutil.Big`);
const UINT = (r: string) => fail(`json: cannot unmarshal ${r} into Go value of type hexutil.Uint`);

describe('uint64', () => {
  table(uint64, [
    ['0x0', 0n],
    ['0x1', 1n],
    ['0xff', 255n],
    ['0xFF', 255n],
    ['0xAbC', 0xabcn],
    ['0X1', 1n],
    ['0xffffffffffffffff', 2n ** 64n - 1n],
    ['0x10000000000000000', U64('hex number > 64 bits')],
    ['0x00', U64('hex number with leading zero digits')],
    ['0x01', U64('hex number with leading zero digits')],
    ['0x', U64('hex string "0x"')],
    ['', U64('empty hex string')],
    ['1', U64('hex string without 0x prefix')],
    ['10', U64('hex string without 0x prefix')],
    ['-0x1', U64('hex string without 0x prefix')],
    ['0x-1', U64('invalid hex string')],
    ['0xg', U64('invalid hex string')],
    ['0x1 ', U64('invalid hex string')],
    [' 0x1', U64('hex string without 0x prefix')],
    [1, U64('non-string')],
    [-1, U64('non-string')],
    [null, U64('non-string')],
    [true, U64('non-string')],
    [{}, U64('non-string')],
    [['0x1'], U64('non-string')],
  ]);
});

describe('uint256', () => {
  table(uint256, [
    ['0x0', 0n],
    ['0xde0b6b3a7640000', 10n ** 18n],
    ['0x10000000000000000', 2n ** 64n],
    ['0x' + 'f'.repeat(64), 2n ** 256n - 1n],
    ['0x' + 'F'.repeat(64), 2n ** 256n - 1n],
    ['0x1' + '0'.repeat(64), BIG('hex number > 256 bits')],
    ['0x' + '0'.repeat(65), BIG('hex number with leading zero digits')],
    ['0x00', BIG('hex number with leading zero digits')],
    ['0x', BIG('hex string "0x"')],
    ['100', BIG('hex string without 0x prefix')],
    ['0xz', BIG('invalid hex string')],
    [100, BIG('non-string')],
    [null, BIG('non-string')],
  ]);
});

describe('uintIndex', () => {
  table(uintIndex, [
    ['0x0', 0],
    ['0x7', 7],
    ['0x1fffffffffffff', Number.MAX_SAFE_INTEGER],
    ['0x20000000000000', UINT('hex number > 53 bits')],
    ['0xffffffffffffffffff', UINT('hex number > 53 bits')],
    ['0x07', UINT('hex number with leading zero digits')],
    ['7', UINT('hex string without 0x prefix')],
    [7, UINT('non-string')],
  ]);
  it('returns a number', () => assert.equal(typeof uintIndex.decode('0x1'), 'number'));
});

describe('blockCount', () => {
  table(blockCount, [
    ['0x0', 0n],
    ['0xa', 10n],
    ['0XA', 10n],
    ['0x0a', 10n], // HexOrDecimal64 tolerates leading zeros
    ['10', 10n],
    ['010', 10n],
    [10, 10n],
    [0, 0n],
    ['0xffffffffffffffff', 2n ** 64n - 1n],
    ['18446744073709551615', 2n ** 64n - 1n],
    ['0x10000000000000000', fail('invalid hex or decimal integer "0x10000000000000000"')],
    ['18446744073709551616', fail('invalid hex or decimal integer "18446744073709551616"')],
    ['0x', fail('invalid hex or decimal integer "0x"')],
    ['', fail('invalid hex or decimal integer ""')],
    ['-1', fail('invalid hex or decimal integer "-1"')],
    ['1.5', fail('invalid hex or decimal integer "1.5"')],
    ['0xzz', fail('invalid hex or decimal integer "0xzz"')],
    ['ten', fail('invalid hex or decimal integer "ten"')],
    [-1, fail('invalid hex or decimal integer "-1"')],
    [1.5, fail('invalid hex or decimal integer "1.5"')],
    [2 ** 60, fail('invalid hex or decimal integer "1152921504606847000"')],
    [null, fail('invalid hex or decimal integer "null"')],
    [true, fail('invalid hex or decimal integer "true"')],
    [[1], fail('invalid hex or decimal integer "[1]"')],
  ]);
});
