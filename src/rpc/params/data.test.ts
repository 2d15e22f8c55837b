import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, table } from '../../../test/helpers/codecTable.ts';
import {
  address,
  array,
  bool,
  bytes,
  hash32,
  jsonObject,
  rawTx,
  rewardPercentiles,
  storageSlot,
  string,
} from './data.ts';
import { uint64 } from './quantity.ts';

const u8 = (...b: number[]) => new Uint8Array(b);
const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const T = (type: string) => (r: string) => fail(`json: cannot unmarshal ${r} into Go value of type ${type}`);
const BYTES = T('hexutil.Bytes');
const ADDR = T('common.Address');
const HASH = T('common.Hash');
const A20 = 'ab'.repeat(20);
const H32 = 'cd'.repeat(32);

describe('bytes', () => {
  table(bytes, [
    ['0x', u8()],
    ['0x00', u8(0)],
    ['0x0102ff', u8(1, 2, 255)],
    ['0xABcd', u8(0xab, 0xcd)],
    ['0X01', u8(1)],
    ['0x0', BYTES('hex string of odd length')],
    ['0x123', BYTES('hex string of odd length')],
    ['', BYTES('empty hex string')],
    ['0102', BYTES('hex string without 0x prefix')],
    ['0xzz', BYTES('invalid hex string')],
    ['0x0 ', BYTES('invalid hex string')],
    ['0x' + 'ab'.repeat(200), hex('ab'.repeat(200))],
    ['0x' + 'ab'.repeat(200) + 'zz', BYTES('invalid hex string')],
    [1, BYTES('non-string')],
    [null, BYTES('non-string')],
    [[1, 2], BYTES('non-string')],
  ]);
});

describe('rawTx', () => {
  table(rawTx, [
    ['0x02f8', hex('02f8')],
    ['0x', fail('typed transaction too short')],
    ['0x1', BYTES('hex string of odd length')],
    [42, BYTES('non-string')],
  ]);
});

describe('address', () => {
  table(address, [
    ['0x' + A20, hex(A20)],
    ['0x' + A20.toUpperCase(), hex(A20)],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', hex('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')],
    ['0x' + A20.slice(2), fail('hex string has length 38, want 40 for common.Address')],
    ['0x' + A20 + '00', fail('hex string has length 42, want 40 for common.Address')],
    ['0x', fail('hex string has length 0, want 40 for common.Address')],
    ['0x' + A20.slice(1), ADDR('hex string of odd length')],
    [A20, ADDR('hex string without 0x prefix')],
    ['0x' + 'zz'.repeat(20), ADDR('invalid hex string')],
    // Characters just outside the digit ranges, and non-ASCII (outside the decoder's table).
    ['0x' + A20.slice(0, 38) + '0g', ADDR('invalid hex string')],
    ['0x' + A20.slice(0, 38) + '/0', ADDR('invalid hex string')],
    ['0x' + A20.slice(0, 38) + ':0', ADDR('invalid hex string')],
    ['0x' + A20.slice(0, 38) + '@0', ADDR('invalid hex string')],
    ['0x' + A20.slice(0, 38) + '0`', ADDR('invalid hex string')],
    ['0x' + A20.slice(0, 38) + '\u00e90', ADDR('invalid hex string')],
    ['0x' + A20.slice(0, 38) + '\u0100\u0130', ADDR('invalid hex string')],
    ['', ADDR('empty hex string')],
    [0, ADDR('non-string')],
    [null, ADDR('non-string')],
  ]);
});

describe('hash32', () => {
  table(hash32, [
    ['0x' + H32, hex(H32)],
    ['0X' + H32.toUpperCase(), hex(H32)],
    ['0x' + H32.slice(2), fail('hex string has length 62, want 64 for common.Hash')],
    ['0x' + A20, fail('hex string has length 40, want 64 for common.Hash')],
    ['0x1', HASH('hex string of odd length')],
    [H32, HASH('hex string without 0x prefix')],
    ['0x' + 'gg'.repeat(32), HASH('invalid hex string')],
    [{}, HASH('non-string')],
  ]);
});

describe('storageSlot', () => {
  const slot = (n: bigint) => hex(n.toString(16).padStart(64, '0'));
  table(storageSlot, [
    ['0x0', slot(0n)],
    ['0x', slot(0n)],
    ['0x00', slot(0n)],
    ['0x1', slot(1n)],
    ['0x01', slot(1n)],
    ['0x123', slot(0x123n)],
    ['0XABC', slot(0xabcn)],
    ['5', slot(5n)], // geth decodes keys without a prefix too
    ['0x' + 'f'.repeat(64), slot(2n ** 256n - 1n)],
    ['0x' + 'f'.repeat(63), slot(2n ** 252n - 1n)],
    ['0x' + '0'.repeat(64), slot(0n)],
    ['0x1' + '0'.repeat(64), fail('unable to decode storage key: hex string too long, want at most 32 bytes')],
    ['0x' + '0'.repeat(66), fail('unable to decode storage key: hex string too long, want at most 32 bytes')],
    ['0xzz', fail('unable to decode storage key: hex string invalid')],
    ['-0x1', fail('unable to decode storage key: hex string invalid')],
    ['', fail('unable to decode storage key: empty hex string')],
    [0, T('string')('number')],
    [null, T('string')('null')],
  ]);
  it('always yields 32 bytes', () => assert.equal(storageSlot.decode('0x1').length, 32));
});

describe('bool', () => {
  table(bool, [
    [true, true],
    [false, false],
    ['true', T('bool')('string')],
    [1, T('bool')('number')],
    [null, T('bool')('null')],
  ]);
});

describe('string', () => {
  table(string, [
    ['', ''],
    ['abc', 'abc'],
    [1, T('string')('number')],
    [{}, T('string')('object')],
    [[], T('string')('array')],
    [false, T('string')('bool')],
  ]);
});

describe('array', () => {
  table(array(uint64), [
    [[], []],
    [
      ['0x1', '0x2'],
      [1n, 2n],
    ],
    [['0x1', 2], T('hexutil.Uint64')('non-string')],
    ['0x1', T('array')('string')],
    [{}, T('array')('object')],
  ]);
  table(array(uint64, { max: 2 }), [
    [
      ['0x1', '0x2'],
      [1n, 2n],
    ],
    [['0x1', '0x2', '0x3'], fail('too many elements: 3, want at most 2')],
  ]);
  table(array(uint64, { goType: '[]hexutil.Uint64' }), [
    [['0x1'], [1n]],
    ['0x1', T('[]hexutil.Uint64')('string')],
  ]);
});

describe('rewardPercentiles', () => {
  table(rewardPercentiles, [
    [[], []],
    [
      [0, 100],
      [0, 100],
    ],
    [
      [10, 20.5, 99.9],
      [10, 20.5, 99.9],
    ],
    [[101], fail('invalid reward percentile: 101.000000')],
    [[-1], fail('invalid reward percentile: -1.000000')],
    [[50, 40], fail('invalid reward percentile: #0:50.000000 >= #1:40.000000')],
    [[50, 50], fail('invalid reward percentile: #0:50.000000 >= #1:50.000000')],
    [['10'], T('float64')('string')],
    [[null], T('float64')('null')],
    [10, T('[]float64')('number')],
  ]);
});

describe('jsonObject', () => {
  table(jsonObject, [
    [{}, {}],
    [
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
    ],
    [[], T('object')('array')],
    ['x', T('object')('string')],
    [null, T('object')('null')],
  ]);
});
