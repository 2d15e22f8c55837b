// The receipt encoding (receipts root, debug_getRawReceipts) against ethereumjs' encodeReceipt: every tx type, failed
// and successful, with and without logs; and the block bloom against ethereumjs' Bloom.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bloom, encodeReceipt } from '@ethereumjs/vm';
import type { ReceiptRecord } from '../store/records.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { blockBloom, encodeConsensusReceipt } from './block.ts';

function receipt(type: number, status: 0 | 1, cumulativeGasUsed: bigint, logs: number): ReceiptRecord {
  return {
    type,
    status,
    cumulativeGasUsed,
    gasUsed: 21_000n,
    bloom: new Uint8Array(256).fill(type + 1),
    logs: Array.from({ length: logs }, (_, i) => ({
      address: new Uint8Array(20).fill(i + 1),
      topics: Array.from({ length: i }, (_, t) => new Uint8Array(32).fill(t + 9)),
      data: new Uint8Array(i * 40).fill(7),
    })),
    from: new Uint8Array(20),
    effectiveGasPrice: 1n,
  };
}

describe('encodeConsensusReceipt', () => {
  it("is ethereumjs' encodeReceipt byte for byte", () => {
    for (const type of [0, 1, 2, 3, 4]) {
      for (const status of [0, 1] as const) {
        for (const [gas, logs] of [
          [0n, 0],
          [21_000n, 0],
          [123_456_789n, 1],
          [2n ** 40n, 4],
        ] as const) {
          const r = receipt(type, status, gas, logs);
          const want = encodeReceipt(
            {
              status: r.status,
              cumulativeBlockGasUsed: r.cumulativeGasUsed,
              bitvector: r.bloom,
              logs: r.logs.map((l) => [l.address, l.topics, l.data]),
            },
            r.type as never,
          );
          assert.equal(bytesToHex(encodeConsensusReceipt(r)), bytesToHex(want), `type ${type} status ${status} ${gas}`);
        }
      }
    }
  });
});

describe('blockBloom', () => {
  it("the block bloom is the OR of the receipts' blooms, as @ethereumjs/vm's Bloom.or makes it", () => {
    const rs = [receipt(0, 1, 1n, 1), receipt(2, 0, 2n, 2), receipt(4, 1, 3n, 0)];
    const bloom = new Bloom();
    for (const r of rs) bloom.or(new Bloom(r.bloom));
    assert.deepEqual(blockBloom(rs), bloom.bitvector);
    assert.deepEqual(blockBloom([]), new Uint8Array(256));
  });
});
