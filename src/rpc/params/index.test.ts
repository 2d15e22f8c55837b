import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidParamsError } from '../../errors/index.ts';
import { LATEST } from '../../primitives/blockSelector.ts';
import * as params from './index.ts';
import {
  address,
  blockCount,
  blockSelector,
  bool,
  callRequest,
  codec,
  decodeParams,
  optional,
  optionalBlockSelector,
  rewardPercentiles,
  storageSlot,
} from './index.ts';

/** Asserts decodeParams fails with InvalidParamsError and exactly `message`. */
function rejects(raw: unknown[], codecs: readonly params.Codec<unknown>[], message: string): void {
  assert.throws(
    () => decodeParams(raw, codecs),
    (e: unknown) => {
      assert.ok(e instanceof InvalidParamsError, `not InvalidParamsError: ${String(e)}`);
      assert.equal(e.message, message);
      return true;
    },
  );
}

const A = '0x' + '12'.repeat(20);

describe('decodeParams', () => {
  const getBalance = [address, blockSelector] as const;
  const call = [callRequest, optionalBlockSelector] as const;

  it('decodes a full positional list', () => {
    assert.deepEqual(decodeParams([A, '0x10'], getBalance), [
      new Uint8Array(20).fill(0x12),
      { kind: 'number', number: 16n },
    ]);
  });

  const cases: [name: string, raw: unknown[], codecs: readonly params.Codec<unknown>[], message: string][] = [
    ['too many arguments', [A, 'latest', 'extra'], getBalance, 'too many arguments, want at most 2'],
    ['too many for zero-arg method', [1], [], 'too many arguments, want at most 0'],
    ['missing required', [A], getBalance, 'missing value for required argument 1'],
    ['missing all', [], getBalance, 'missing value for required argument 0'],
    [
      'required null goes to the codec',
      [null, 'latest'],
      getBalance,
      'invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Address',
    ],
    ['second argument error index', [A, '0x01'], getBalance, 'invalid argument 1: hex number with leading zero digits'],
    [
      'feeHistory percentiles',
      ['0x4', 'latest', [60, 50]],
      [blockCount, blockSelector, rewardPercentiles],
      'invalid argument 2: invalid reward percentile: #0:60.000000 >= #1:50.000000',
    ],
    [
      'getStorageAt key too long',
      [A, '0x' + '1'.repeat(65), 'latest'],
      [address, storageSlot, blockSelector],
      'invalid argument 1: unable to decode storage key: hex string too long, want at most 32 bytes',
    ],
  ];
  for (const [name, raw, codecs, message] of cases) it(`rejects ${name}`, () => rejects(raw, codecs, message));

  it('optional params: absent and null take the fallback', () => {
    assert.deepEqual(decodeParams([{}], call), [{}, LATEST]);
    assert.deepEqual(decodeParams([{}, null], call), [{}, LATEST]);
    assert.deepEqual(decodeParams([{}, 'pending'], call), [{}, { kind: 'tag', tag: 'pending' }]);
  });

  it('optional without fallback yields undefined', () => {
    assert.deepEqual(decodeParams([], [optional(bool)]), [undefined]);
    assert.deepEqual(decodeParams([null], [optional(bool)]), [undefined]);
    assert.deepEqual(decodeParams([true], [optional(bool)]), [true]);
  });

  it('optional still validates present values', () => {
    rejects([5], [optional(bool)], 'invalid argument 0: json: cannot unmarshal number into Go value of type bool');
  });

  it('non-ParamError failures propagate unchanged', () => {
    const boom = codec(() => {
      throw new RangeError('boom');
    });
    assert.throws(() => decodeParams([1], [boom]), RangeError);
  });
});

describe('index re-exports', () => {
  it('exposes every codec and the contract', () => {
    for (const name of [
      'codec',
      'optional',
      'decodeParams',
      'ParamError',
      'UnmarshalTypeError',
      'uint64',
      'uint256',
      'uintIndex',
      'blockCount',
      'bytes',
      'address',
      'hash32',
      'storageSlot',
      'bool',
      'string',
      'rawTx',
      'array',
      'rewardPercentiles',
      'jsonObject',
      'blockNumberOrTag',
      'optionalBlockNumberOrTag',
      'blockSelector',
      'optionalBlockSelector',
      'callRequest',
    ]) {
      assert.ok(name in params, `missing export ${name}`);
    }
  });
});

describe('simulateRequest', () => {
  it("names geth's Go type of each list that is not one", () => {
    const cases: Array<[unknown, string]> = [
      [
        { blockStateCalls: 'x' },
        'string into Go struct field ethapi.simOpts.blockStateCalls of type []ethapi.simBlock',
      ],
      [
        { blockStateCalls: [{ calls: 5 }] },
        'number into Go struct field ethapi.simBlock.calls of type []ethapi.TransactionArgs',
      ],
      [
        { blockStateCalls: [{ blockOverrides: { withdrawals: {} } }] },
        'object into Go struct field override.BlockOverrides.withdrawals of type types.Withdrawals',
      ],
    ];
    for (const [raw, tail] of cases) {
      assert.throws(() => params.simulateRequest.decode(raw), { message: `json: cannot unmarshal ${tail}` });
    }
  });
});
