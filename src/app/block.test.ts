// The receipt encoding (receipts root, debug_getRawReceipts) against ethereumjs' encodeReceipt: every tx type, failed
// and successful, with and without logs; and the block bloom against ethereumjs' Bloom.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBlockHeader } from '@ethereumjs/block';
import { Common, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { Bloom, encodeReceipt } from '@ethereumjs/vm';
import { blockSize } from '../store/chainStore.ts';
import type { ReceiptRecord } from '../store/records.ts';
import { initKeccak } from '../primitives/keccak.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { indexedTrieRoot } from '../primitives/trie/root.ts';
import { blockBloom, blockSizeOf, encodeConsensusReceipt, receiptsRoot } from './block.ts';
import { txOf } from './evm/execTx.testing.ts';

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

describe('receiptsRoot', () => {
  it("is the indexed trie of the receipts' encodings, one scratch reused across them (also past its size)", async () => {
    await initKeccak();
    for (const n of [0, 1, 2, 130, 300]) {
      // Every 7th receipt carries 40 logs: an encoding larger than the scratch, written into its own array.
      const rs = Array.from({ length: n }, (_, i) =>
        receipt(i % 5, (i % 3 === 0 ? 0 : 1) as 0 | 1, BigInt(i), i % 7 === 0 ? 40 : i % 3),
      );
      assert.deepEqual(receiptsRoot(rs), indexedTrieRoot(rs.map((r) => encodeConsensusReceipt(r))), `${n} receipts`);
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

describe('blockSizeOf', () => {
  it("is chainStore's blockSize, from the txs' encodings (legacy txs embedded as lists, typed ones as strings)", () => {
    const common = new Common({ chain: Mainnet, hardfork: 'prague' });
    const key = new Uint8Array(32).fill(3);
    const header = createBlockHeader({ number: 5n, gasLimit: 30_000_000n, baseFeePerGas: 7n }, { common });
    for (const n of [0, 1, 3, 40]) {
      const txs = Array.from({ length: n }, (_, i) => {
        // Data sizes across the RLP short/long string boundaries.
        const data = new Uint8Array([0, 10, 60, 300, 70_000][i % 5]!).fill(1);
        const fields = { nonce: BigInt(i), gasLimit: 1_000_000n, to: new Uint8Array(20).fill(9), data, value: 1n };
        return i % 2 === 0
          ? createLegacyTx({ ...fields, gasPrice: 10n }, { common }).sign(key)
          : createFeeMarket1559Tx({ ...fields, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }, { common }).sign(key);
      });
      assert.equal(
        blockSizeOf(
          header.raw(),
          txs.map((t) => t.serialize()),
        ),
        blockSize(header.raw(), txs.map(txOf)),
        `${n} txs`,
      );
    }
  });
});
