import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ParityTrace } from '../../../tracing/types.ts';
import { callEntries, internalOperations, touches } from './format.ts';

const A = new Uint8Array(20).fill(0xaa);
const B = new Uint8Array(20).fill(0xbb);
const C = new Uint8Array(20).fill(0xcc);
const call = (
  traceAddress: number[],
  from: Uint8Array,
  to: Uint8Array,
  value: bigint,
  callType = 'call',
): ParityTrace => ({
  action: { kind: 'call', callType, from, to, gas: 100n, input: new Uint8Array([1, 2]), value },
  result: { kind: 'call', gasUsed: 1n, output: new Uint8Array([3]) },
  subtraces: 0,
  traceAddress,
});

describe('ots_ shapes from Parity traces', () => {
  it('a value call whose frame selfdestructs is the selfdestruct alone; other value calls are transfers', () => {
    const traces: ParityTrace[] = [
      call([], A, B, 5n),
      { action: { kind: 'suicide', address: B, refundAddress: C, balance: 5n }, subtraces: 0, traceAddress: [0] },
      call([1], B, C, 0n),
      call([2], B, C, 7n, 'delegatecall'),
    ];
    assert.deepEqual(internalOperations(traces), [
      { type: 1, from: '0x' + 'bb'.repeat(20), to: '0x' + 'cc'.repeat(20), value: '0x5' },
    ]);
    assert.deepEqual(
      internalOperations([call([], A, B, 5n)]).map((o) => o.type),
      [0],
    );
  });

  it('a failed creation has the zero address; ots_traceTransaction lists calls only, with their depth', () => {
    const create: ParityTrace = {
      action: { kind: 'create', creationMethod: 'create2', from: A, gas: 1n, init: new Uint8Array(0), value: 0n },
      error: 'Out of gas',
      subtraces: 0,
      traceAddress: [0],
    };
    assert.deepEqual(internalOperations([create]), [
      { type: 3, from: '0x' + 'aa'.repeat(20), to: '0x' + '00'.repeat(20), value: '0x0' },
    ]);
    const entries = callEntries([call([], A, B, 0n), create, call([1, 0], B, C, 1n, 'staticcall')]);
    assert.deepEqual(
      entries.map((e) => [e.type, e.depth, e.output]),
      [
        ['CALL', 0, '0x03'],
        ['STATICCALL', 2, '0x03'],
      ],
    );
    assert.equal(touches(create, A), true);
    assert.equal(touches(create, B), false);
  });
});
