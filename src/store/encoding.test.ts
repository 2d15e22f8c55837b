// The receipt encoding is written out (no @ethereumjs/vm at startup): it must stay byte for byte the library's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bloom, encodeReceipt } from '@ethereumjs/vm';
import { blockBloom } from '../app/block.ts';
import { encodeReceiptRecord } from './encoding.ts';
import type { ReceiptRecord } from './records.ts';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

function receipt(type: number, status: 0 | 1, logs: number, cumulativeGasUsed: bigint): ReceiptRecord {
  return {
    type,
    status,
    cumulativeGasUsed,
    gasUsed: 21_000n,
    logs: Array.from({ length: logs }, (_, i) => ({
      address: bytes(20, i + 1),
      topics: Array.from({ length: i }, (_, j) => bytes(32, j + 7)),
      data: bytes(i * 5, 0xab),
    })) as never,
    bloom: bytes(256, 0).map((_, i) => (i * 37 + type + logs) & 0xff),
    from: bytes(20, 9),
    effectiveGasPrice: 1n,
  };
}

describe('receipt encoding', () => {
  it('is @ethereumjs/vm encodeReceipt for every tx type, both statuses, with and without logs', () => {
    for (const type of [0, 1, 2, 3, 4]) {
      for (const status of [0, 1] as const) {
        for (const [logs, gas] of [
          [0, 21_000n],
          [3, 1_234_567_890n],
        ] as const) {
          const r = receipt(type, status, logs, gas);
          const expected = encodeReceipt(
            {
              status,
              cumulativeBlockGasUsed: gas,
              bitvector: r.bloom,
              logs: r.logs.map((l) => [l.address, l.topics, l.data]),
            },
            type as never,
          );
          assert.deepEqual(encodeReceiptRecord(r), expected, `type ${type} status ${status} logs ${logs}`);
        }
      }
    }
  });

  it("the block bloom is the OR of the receipts' blooms, as @ethereumjs/vm's Bloom.or makes it", () => {
    const rs = [receipt(0, 1, 1, 1n), receipt(2, 0, 2, 2n), receipt(4, 1, 0, 3n)];
    const bloom = new Bloom();
    for (const r of rs) bloom.or(new Bloom(r.bloom));
    assert.deepEqual(blockBloom(rs), bloom.bitvector);
    assert.deepEqual(blockBloom([]), new Uint8Array(256));
  });
});
