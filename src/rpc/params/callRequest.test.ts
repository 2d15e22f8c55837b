import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallRequest } from '../../primitives/callRequest.ts';
import { callRequest } from './callRequest.ts';
import { ParamError, decodeParams } from './codec.ts';

const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const A = 'aa'.repeat(20);
const B = 'bb'.repeat(20);
const K = '11'.repeat(32);

/** Decodes `raw`, expecting success. */
const ok = (raw: unknown): CallRequest => callRequest.decode(raw);

/** Asserts `raw` fails with exactly `message`. */
function bad(raw: unknown, message: string): void {
  assert.throws(
    () => callRequest.decode(raw),
    (e: unknown) => {
      assert.ok(e instanceof ParamError, `not a ParamError: ${String(e)}`);
      assert.equal(e.message, message);
      return true;
    },
  );
}

const fieldErr = (field: string, reason: string, type: string) =>
  `json: cannot unmarshal ${reason} into Go struct field TransactionArgs.${field} of type ${type}`;

describe('callRequest', () => {
  it('decodes a full 1559 request', () => {
    assert.deepEqual(
      ok({
        from: '0x' + A,
        to: '0x' + B,
        gas: '0x5208',
        maxFeePerGas: '0x3b9aca00',
        maxPriorityFeePerGas: '0x1',
        value: '0xde0b6b3a7640000',
        input: '0xabcdef',
        nonce: '0x7',
        accessList: [{ address: '0x' + A, storageKeys: ['0x' + K] }],
        type: '0x2',
        chainId: '0x1',
      }),
      {
        from: hex(A),
        to: hex(B),
        gas: 21000n,
        maxFeePerGas: 1_000_000_000n,
        maxPriorityFeePerGas: 1n,
        value: 10n ** 18n,
        data: hex('abcdef'),
        nonce: 7n,
        accessList: [{ address: hex(A), storageKeys: [hex(K)] }],
        type: 2n,
        chainId: 1n,
      },
    );
  });

  const cases: [name: string, raw: unknown, expected: CallRequest][] = [
    ['empty object', {}, {}],
    ['legacy gasPrice', { gasPrice: '0x1' }, { gasPrice: 1n }],
    ['to null means create', { to: null, data: '0x60' }, { data: hex('60') }],
    ['absent to means create', { data: '0x60' }, { data: hex('60') }],
    ['null fields are absent', { from: null, gas: null, value: null, accessList: null, input: null }, {}],
    ['gasLimit alias', { gasLimit: '0x10' }, { gas: 16n }],
    ['gas and equal gasLimit', { gas: '0x10', gasLimit: '0x10' }, { gas: 16n }],
    ['data only', { data: '0x01' }, { data: hex('01') }],
    ['input only', { input: '0x01' }, { data: hex('01') }],
    ['data equal to input', { data: '0x01', input: '0x01' }, { data: hex('01') }],
    ['empty input', { input: '0x' }, { data: new Uint8Array(0) }],
    ['unknown fields ignored', { blobVersionedHashes: ['0x01'], foo: 1, value: '0x0' }, { value: 0n }],
    ['empty access list', { accessList: [] }, { accessList: [] }],
    [
      'access entry without keys',
      { accessList: [{ address: '0x' + A, storageKeys: [] }] },
      {
        accessList: [{ address: hex(A), storageKeys: [] }],
      },
    ],
    ['max uint256 value', { value: '0x' + 'f'.repeat(64) }, { value: 2n ** 256n - 1n }],
    ['max uint64 gas', { gas: '0xffffffffffffffff' }, { gas: 2n ** 64n - 1n }],
  ];
  for (const [name, raw, expected] of cases) it(name, () => assert.deepEqual(ok(raw), expected));

  const failures: [name: string, raw: unknown, message: string][] = [
    ['string param', '0x01', 'json: cannot unmarshal string into Go value of type ethapi.TransactionArgs'],
    ['array param', [], 'json: cannot unmarshal array into Go value of type ethapi.TransactionArgs'],
    ['number param', 1, 'json: cannot unmarshal number into Go value of type ethapi.TransactionArgs'],
    ['null param', null, 'json: cannot unmarshal null into Go value of type ethapi.TransactionArgs'],
    ['gas without prefix', { gas: '5208' }, fieldErr('gas', 'hex string without 0x prefix', 'hexutil.Uint64')],
    ['gas as number', { gas: 21000 }, fieldErr('gas', 'non-string', 'hexutil.Uint64')],
    ['gas > 64 bits', { gas: '0x10000000000000000' }, fieldErr('gas', 'hex number > 64 bits', 'hexutil.Uint64')],
    [
      'gasLimit bad',
      { gasLimit: '0x01' },
      fieldErr('gasLimit', 'hex number with leading zero digits', 'hexutil.Uint64'),
    ],
    ['gas != gasLimit', { gas: '0x1', gasLimit: '0x2' }, 'both "gas" and "gasLimit" are set and not equal'],
    ['value > 256 bits', { value: '0x1' + '0'.repeat(64) }, fieldErr('value', 'hex number > 256 bits', '*hexutil.Big')],
    ['value empty', { value: '0x' }, fieldErr('value', 'hex string "0x"', '*hexutil.Big')],
    ['negative value', { value: '-0x1' }, fieldErr('value', 'hex string without 0x prefix', '*hexutil.Big')],
    [
      'nonce leading zero',
      { nonce: '0x00' },
      fieldErr('nonce', 'hex number with leading zero digits', 'hexutil.Uint64'),
    ],
    ['chainId number', { chainId: 1 }, fieldErr('chainId', 'non-string', '*hexutil.Big')],
    ['type bad', { type: '2' }, fieldErr('type', 'hex string without 0x prefix', 'hexutil.Uint64')],
    [
      'from short',
      { from: '0x' + A.slice(2) },
      'TransactionArgs.from: hex string has length 38, want 40 for common.Address',
    ],
    ['to odd', { to: '0x' + A.slice(1) }, fieldErr('to', 'hex string of odd length', 'common.Address')],
    ['to empty string', { to: '' }, fieldErr('to', 'empty hex string', 'common.Address')],
    ['data odd', { data: '0x1' }, fieldErr('data', 'hex string of odd length', 'hexutil.Bytes')],
    ['input bad', { input: '0xzz' }, fieldErr('input', 'invalid hex string', 'hexutil.Bytes')],
    [
      'data != input',
      { data: '0x01', input: '0x02' },
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    ],
    [
      'gasPrice + maxFee',
      { gasPrice: '0x1', maxFeePerGas: '0x1' },
      'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    ],
    [
      'gasPrice + tip',
      { gasPrice: '0x1', maxPriorityFeePerGas: '0x1' },
      'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    ],
    ['accessList object', { accessList: {} }, fieldErr('accessList', 'object', 'types.AccessList')],
    ['accessList entry string', { accessList: ['0x' + A] }, fieldErr('accessList', 'string', 'types.AccessTuple')],
    [
      'accessList missing address',
      { accessList: [{ storageKeys: [] }] },
      "missing required field 'address' for AccessTuple",
    ],
    [
      'accessList missing keys',
      { accessList: [{ address: '0x' + A }] },
      "missing required field 'storageKeys' for AccessTuple",
    ],
    [
      'accessList keys not array',
      { accessList: [{ address: '0x' + A, storageKeys: '0x' + K }] },
      fieldErr('accessList.storageKeys', 'string', '[]common.Hash'),
    ],
    [
      'accessList short key',
      { accessList: [{ address: '0x' + A, storageKeys: ['0x01'] }] },
      'TransactionArgs.accessList.storageKeys: hex string has length 2, want 64 for common.Hash',
    ],
    [
      'accessList bad address',
      { accessList: [{ address: 'zz', storageKeys: [] }] },
      fieldErr('accessList.address', 'hex string without 0x prefix', 'common.Address'),
    ],
  ];
  for (const [name, raw, message] of failures) it(`rejects ${name}`, () => bad(raw, message));

  it('is prefixed with the argument index by decodeParams', () => {
    assert.throws(() => decodeParams([{ gas: '5208' }], [callRequest]), {
      name: 'InvalidParamsError',
      message: 'invalid argument 0: ' + fieldErr('gas', 'hex string without 0x prefix', 'hexutil.Uint64'),
    });
  });
});
