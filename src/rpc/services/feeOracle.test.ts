import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BlockRecord } from '../../store/records.ts';
import { FeeOracle, type FeeChain } from './feeOracle.ts';

/** A block of legacy txs paying `prices` (base fee `base`), each using `gas` of a 1000-gas block. */
function block(
  number: bigint,
  base: bigint,
  prices: bigint[],
  gas = 100n,
  blobs = { excess: 0n, used: 0n },
): BlockRecord {
  return {
    number,
    header: {
      baseFeePerGas: base,
      gasUsed: gas * BigInt(prices.length),
      gasLimit: 1000n,
      calcNextBaseFee: () => base + 1n,
      excessBlobGas: blobs.excess,
      blobGasUsed: blobs.used,
    },
    txs: prices.map((gasPrice) => ({ gasPrice })),
  } as unknown as BlockRecord;
}

function chainOf(blocks: BlockRecord[]): FeeChain {
  return {
    head: () => blocks[blocks.length - 1]!,
    blockByNumber: (n) => blocks[Number(n)],
    receipts: (b) => b.txs.map(() => ({ gasUsed: 100n })),
  };
}

const market = (nextBaseFee: bigint, minGasPrice: bigint) => ({ nextBaseFee: () => nextBaseFee, minGasPrice });

describe('FeeOracle', () => {
  it('suggests no tip on an idle chain, and never a gas price below the minimum', () => {
    const oracle = new FeeOracle(chainOf([block(0n, 10n, []), block(1n, 10n, [])]), market(7n, 9n), 1024n, 'Osaka');
    assert.equal(oracle.suggestTip(), 0n);
    assert.equal(oracle.gasPrice(), 9n);
    assert.deepEqual(oracle.suggestion(), { nextBaseFee: 7n, tip: 0n, minGasPrice: 9n });
  });

  it('takes the 60th percentile of the tips paid over the last 20 blocks', () => {
    // Block 0 pays a tip of 1000 but lies 21 blocks back: left out. Tips 1..5 remain; index floor(4 * 0.6) = 2.
    const blocks = [block(0n, 10n, [1010n])];
    for (let n = 1n; n <= 20n; n++) blocks.push(block(n, 10n, n <= 5n ? [10n + n] : []));
    const oracle = new FeeOracle(chainOf(blocks), market(20n, 0n), 1024n, 'Osaka');
    assert.equal(oracle.suggestTip(), 3n);
    assert.equal(oracle.gasPrice(), 23n);
  });

  it('reports fee history capped and clamped to the chain, with tips at gas-weighted percentiles', () => {
    const blocks = [block(0n, 10n, []), block(1n, 12n, [20n, 13n, 15n]), block(2n, 14n, [])];
    const oracle = new FeeOracle(chainOf(blocks), market(0n, 0n), 2n, 'Osaka');
    const h = oracle.history(10n, blocks[2]!, [0, 50, 100]);
    assert.equal(h.oldest, 1n);
    assert.deepEqual(h.baseFees, [12n, 14n, 15n]);
    assert.deepEqual(h.gasUsedRatios, [0.3, 0]);
    // Tips sorted 1, 3, 8 with 100 gas each of 300: 0% -> first, 50% (150 gas) -> second, 100% -> last.
    assert.deepEqual(h.rewards, [
      [1n, 3n, 8n],
      [0n, 0n, 0n],
    ]);
    const all = new FeeOracle(chainOf(blocks), market(0n, 0n), 1024n, 'Osaka').history(10n, blocks[1]!);
    assert.equal(all.oldest, 0n);
    assert.deepEqual(all.baseFees, [10n, 12n, 13n]);
    assert.equal(all.rewards, undefined);
    // No blobs: 1 wei a block and next, as geth reports for Cancun and later blocks.
    assert.deepEqual(all.blobBaseFees, [1n, 1n, 1n]);
    assert.deepEqual(all.blobGasUsedRatios, [0, 0]);
  });

  it('reports blob fees from each excess, and the next under EIP-7918 on Osaka (Prague: EIP-4844 alone)', () => {
    const blob = 131072n;
    // A parent at excess 200 blobs carrying 6 (the target) at a 1 gwei base fee: its blob price (187 wei · 131072)
    // is under 8192 · 1 gwei, so Osaka keeps the excess and adds 6 · (9 − 6) / 9 = 2 blobs; Prague adds 6 − 6.
    const parent = block(0n, 10n ** 9n, [], 100n, { excess: 200n * blob, used: 6n * blob });
    const next = (fork: 'Osaka' | 'Prague') =>
      new FeeOracle(chainOf([parent]), market(0n, 0n), 1024n, fork).history(1n, parent).blobBaseFees;
    const fee = (excess: bigint) => {
      // fake_exponential(1, excess, 5007716), as EIP-4844 writes it.
      let i = 1n;
      let out = 0n;
      let acc = 5007716n;
      while (acc > 0n) {
        out += acc;
        acc = (acc * excess) / (5007716n * i++);
      }
      return out / 5007716n;
    };
    assert.deepEqual(next('Osaka'), [fee(200n * blob), fee(202n * blob)]);
    assert.deepEqual(next('Prague'), [fee(200n * blob), fee(200n * blob)]);
    assert.deepEqual([fee(200n * blob), fee(202n * blob)], [187n, 197n]);
    const h = new FeeOracle(chainOf([parent]), market(0n, 0n), 1024n, 'Osaka').history(1n, parent);
    assert.deepEqual(h.blobGasUsedRatios, [6 / 9]);
  });
});
