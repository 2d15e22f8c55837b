import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail, table } from '../../../test/helpers/codecTable.ts';
import type { LogCriteria } from '../../filters/criteria.ts';
import { decodeSubscription, filterId, logFilter } from './filter.ts';

const A = '0x' + 'aa'.repeat(20);
const T = '0x' + '11'.repeat(32);
const U = '0x' + '22'.repeat(32);
const b = (h: string) => new Uint8Array(Buffer.from(h.slice(2), 'hex'));
const c = (x: Partial<LogCriteria>): LogCriteria => ({ addresses: [], topics: [], ...x });

describe('logFilter', () => {
  table(logFilter, [
    [{}, c({})],
    [{ address: A }, c({ addresses: [b(A)] })],
    [{ address: [A, A.toUpperCase().replace('0X', '0x')] }, c({ addresses: [b(A), b(A)] })],
    [{ address: null, topics: null }, c({})],
    [{ topics: [T, null, [T, U], [], [U, null]] }, fail('exceed max topics')],
    [{ topics: [T, null, [T, U], [U, null]] }, c({ topics: [[b(T)], null, [b(T), b(U)], null] })],
    [
      { fromBlock: '0x1', toBlock: 'latest' },
      c({ fromBlock: { kind: 'number', number: 1n }, toBlock: { kind: 'tag', tag: 'latest' } }),
    ],
    [{ blockHash: T }, c({ blockHash: b(T) })],
    [{ blockhash: T, topics: [U] }, c({ blockHash: b(T), topics: [[b(U)]] })],
    [{ BLOCKHASH: T }, c({ blockHash: b(T) })],
    [
      { blockHash: T, fromBlock: '0x1' },
      fail('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other'),
    ],
    [
      { blockHash: '0x12' },
      fail('invalid block hash: hex has invalid length 1 after decoding; expected 32 for common.Hash'),
    ],
    [{ address: '0x12' }, fail('invalid address: hex has invalid length 1 after decoding; expected 20 for address')],
    [{ address: 'aa' }, fail('invalid address: hex string without 0x prefix')],
    [{ address: '0xzz' }, fail('invalid address: invalid hex string')],
    [{ address: '0xaaa' }, fail('invalid address: hex string of odd length')],
    [{ address: '' }, fail('invalid address: empty hex string')],
    [{ address: [A, 1] }, fail('non-string address at index 1')],
    [
      { address: [A, '0x1234'] },
      fail('invalid address at index 1: hex has invalid length 2 after decoding; expected 20 for address'),
    ],
    [{ address: {} }, fail('invalid addresses in query')],
    [{ address: Array(1001).fill(A) }, fail('exceed max addresses')],
    [{ topics: [1] }, fail('invalid topic(s)')],
    [{ topics: [[T, 1]] }, fail('invalid topic(s)')],
    [{ topics: ['0x12'] }, fail('hex has invalid length 1 after decoding; expected 32 for topic')],
    [{ topics: 'x' }, fail('json: cannot unmarshal string into Go struct field input.topics of type []interface {}')],
    [{ fromBlock: 'newest' }, fail('hex string without 0x prefix')],
    [
      { fromBlock: 5 },
      fail('json: cannot unmarshal number into Go struct field input.fromBlock of type rpc.BlockNumber'),
    ],
    ['latest', fail('json: cannot unmarshal string into Go value of type filters.FilterCriteria')],
    [[], fail('json: cannot unmarshal array into Go value of type filters.FilterCriteria')],
  ]);
});

describe('filterId', () => {
  table(filterId, [
    ['0xAB', '0xab'],
    [1, fail('json: cannot unmarshal number into Go value of type rpc.ID')],
  ]);
});

describe('decodeSubscription', () => {
  it('decodes each kind and refuses unknown ones with -32601 wording', () => {
    assert.deepEqual(decodeSubscription('newHeads', undefined), { kind: 'newHeads' });
    assert.deepEqual(decodeSubscription('syncing', null), { kind: 'syncing' });
    assert.deepEqual(decodeSubscription('logs', undefined), { kind: 'logs', criteria: c({}) });
    assert.deepEqual(decodeSubscription('logs', { address: A }), { kind: 'logs', criteria: c({ addresses: [b(A)] }) });
    assert.deepEqual(decodeSubscription('newPendingTransactions', true), {
      kind: 'newPendingTransactions',
      fullTx: true,
    });
    assert.throws(() => decodeSubscription('newPendingTransactions', 'yes'), {
      name: 'InvalidParamsError',
      message: 'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
    });
    assert.throws(() => decodeSubscription('newHeads', {}), {
      name: 'InvalidParamsError',
      message: 'too many arguments, want at most 1',
    });
    assert.throws(() => decodeSubscription('blocks', undefined), {
      name: 'NotificationsUnsupportedError',
      message: 'no "blocks" subscription in eth namespace',
    });
  });
});
