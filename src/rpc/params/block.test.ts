import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, table, type Fail } from '../../../test/helpers/codecTable.ts';
import { LATEST } from '../../primitives/blockSelector.ts';
import type { BlockSelector } from '../../primitives/blockSelector.ts';
import { blockNumberOrTag, blockSelector, optionalBlockNumberOrTag, optionalBlockSelector } from './block.ts';
import { decodeParams } from './codec.ts';

const tag = (t: string) => ({ kind: 'tag', tag: t }) as BlockSelector;
const num = (n: bigint) => ({ kind: 'number', number: n }) as BlockSelector;
const H32 = 'ab'.repeat(32);
const byHash = (requireCanonical: boolean) =>
  ({ kind: 'hash', hash: new Uint8Array(Buffer.from(H32, 'hex')), requireCanonical }) as BlockSelector;
const MAX_I64 = 2n ** 63n - 1n;

/** Rows shared by both codecs: tags, quantities and their failures. */
const common: [unknown, BlockSelector | Fail][] = [
  ['latest', tag('latest')],
  ['pending', tag('pending')],
  ['earliest', tag('earliest')],
  ['safe', tag('safe')],
  ['finalized', tag('finalized')],
  ['0x0', num(0n)],
  ['0x10', num(16n)],
  ['0XaB', num(0xabn)],
  ['0x7fffffffffffffff', num(MAX_I64)],
  ['0xffffffffffffffff', fail('block number larger than int64')],
  ['0x10000000000000000', fail('hex number > 64 bits')],
  ['0x01', fail('hex number with leading zero digits')],
  ['0x', fail('hex string "0x"')],
  ['', fail('empty hex string')],
  ['10', fail('hex string without 0x prefix')],
  ['Latest', fail('hex string without 0x prefix')],
  ['newest', fail('hex string without 0x prefix')],
  ['-0x1', fail('hex string without 0x prefix')],
  ['0xq', fail('invalid hex string')],
];

describe('blockNumberOrTag', () => {
  table(blockNumberOrTag, [
    ...common,
    ['0x' + H32, fail('hex number > 64 bits')],
    [10, fail('json: cannot unmarshal number into Go value of type rpc.BlockNumber')],
    [null, fail('json: cannot unmarshal null into Go value of type rpc.BlockNumber')],
    [{ blockNumber: '0x1' }, fail('json: cannot unmarshal object into Go value of type rpc.BlockNumber')],
    [['latest'], fail('json: cannot unmarshal array into Go value of type rpc.BlockNumber')],
  ]);
});

describe('blockSelector', () => {
  const canonicalErr =
    'json: cannot unmarshal string into Go struct field BlockNumberOrHash.requireCanonical of type bool';
  table(blockSelector, [
    ...common.map(([i, e]): [unknown, BlockSelector | Fail] =>
      i === '0xffffffffffffffff' ? [i, fail('blocknumber too high')] : [i, e],
    ),
    ['0x' + H32, byHash(false)],
    ['0x' + H32.toUpperCase(), byHash(false)],
    ['0x' + 'zz'.repeat(32), fail('json: cannot unmarshal invalid hex string into Go value of type common.Hash')],
    ['00' + H32, fail('json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash')],
    [{ blockHash: '0x' + H32 }, byHash(false)],
    [{ blockHash: '0x' + H32, requireCanonical: true }, byHash(true)],
    [{ blockHash: '0x' + H32, requireCanonical: false }, byHash(false)],
    [{ blockHash: '0x' + H32, requireCanonical: null }, byHash(false)],
    [{ blockHash: '0x' + H32, requireCanonical: 'yes' }, fail(canonicalErr)],
    [{ blockHash: '0x' + H32, blockNumber: null }, byHash(false)],
    [{ blockHash: '0x' + H32, extra: 1 }, byHash(false)],
    [{ blockHash: '0x1234' }, fail('BlockNumberOrHash.blockHash: hex string has length 4, want 64 for common.Hash')],
    [
      { blockHash: 5 },
      fail('json: cannot unmarshal non-string into Go struct field BlockNumberOrHash.blockHash of type common.Hash'),
    ],
    [{ blockNumber: '0x5' }, num(5n)],
    [{ blockNumber: 'finalized' }, tag('finalized')],
    [{ blockNumber: '0x5', requireCanonical: true }, num(5n)],
    [{ blockNumber: '0xffffffffffffffff' }, fail('block number larger than int64')],
    [{ blockNumber: '5' }, fail('hex string without 0x prefix')],
    [
      { blockNumber: 5 },
      fail('json: cannot unmarshal number into Go struct field BlockNumberOrHash.blockNumber of type rpc.BlockNumber'),
    ],
    [
      { blockNumber: '0x1', blockHash: '0x' + H32 },
      fail('cannot specify both BlockHash and BlockNumber, choose one or the other'),
    ],
    [{}, fail('invalid arguments; neither block nor hash specified')],
    [{ requireCanonical: true }, fail('invalid arguments; neither block nor hash specified')],
    [{ blockNumber: null, blockHash: null }, fail('invalid arguments; neither block nor hash specified')],
    [10, fail('json: cannot unmarshal number into Go value of type rpc.BlockNumberOrHash')],
    [true, fail('json: cannot unmarshal bool into Go value of type rpc.BlockNumberOrHash')],
    [null, fail('json: cannot unmarshal null into Go value of type rpc.BlockNumberOrHash')],
    [['latest'], fail('json: cannot unmarshal array into Go value of type rpc.BlockNumberOrHash')],
  ]);
});

describe('optional block codecs', () => {
  for (const c of [optionalBlockNumberOrTag, optionalBlockSelector]) {
    it('defaults to latest when absent or null', () => {
      assert.equal(c.required, false);
      assert.deepEqual(decodeParams([], [c]), [LATEST]);
      assert.deepEqual(decodeParams([null], [c]), [LATEST]);
      assert.deepEqual(decodeParams(['0x2'], [c]), [num(2n)]);
    });
  }
  it('required variants reject absence', () => {
    assert.throws(
      () => decodeParams([], [blockSelector]),
      /^InvalidParamsError: missing value for required argument 0$/,
    );
  });
});
