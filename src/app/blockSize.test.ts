// EIP-7934 in the block builder: on Osaka a transaction that would take the RLP block past 8,388,608 bytes, and
// every one after it, is left for a later block (kept pooled); Prague blocks have no such cap.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { initEngine, WorldState } from '../evm/index.ts';
import { MemReader } from '../evm/testing/mem-reader.testing.ts';
import { rlpEncode } from '../primitives/rlp.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { bytesToBigint } from '../primitives/hex.ts';
import { blockSizeOf, contextHeader, type BlockContext } from './block.ts';
import { blockSizeBound, BlockSizeBudget, HEADER_SIZE_BOUND, txListBytes } from './blockSize.ts';
import { createChainCommon } from './evm/common.ts';
import { blockEnvOf } from './evm/engineTx.ts';
import { executeBlock, type ExecTx } from './evm/executor.ts';
import { execTxOf } from './evm/execTx.testing.ts';

const CAP = 8_388_608;
const common = createChainCommon(9000n, undefined, 'Osaka');
const [alice] = deriveAccounts(DEV_MNEMONIC, 1) as [ReturnType<typeof deriveAccounts>[0]];
const ctx: BlockContext = {
  number: 1n,
  parentHash: new Uint8Array(32).fill(1),
  timestamp: 1000n,
  coinbase: new Uint8Array(20).fill(0xee),
  gasLimit: 200_000_000n,
  baseFeePerGas: 7n,
  mixHash: new Uint8Array(32).fill(2),
};

/** Alice's txs with `n` nonces, each carrying 120,000 zero bytes of calldata (about 120 KB encoded). */
function bigTxs(n: number): ExecTx[] {
  return Array.from({ length: n }, (_, i) => {
    const tx = createFeeMarket1559Tx(
      {
        nonce: BigInt(i),
        gasLimit: 1_300_000n,
        maxFeePerGas: 7n,
        maxPriorityFeePerGas: 0n,
        to: new Uint8Array(20).fill(0x22),
        data: new Uint8Array(120_000),
      },
      { common },
    ).sign(alice.privateKey);
    return execTxOf(tx, alice.address);
  });
}

function run(fork: 'Osaka' | 'Prague', txs: ExecTx[]) {
  const reader = new MemReader().set(bytesToBigint(alice.address), { balance: 10n ** 20n });
  return executeBlock(new WorldState(reader), ctx, blockEnvOf(ctx, 9000n), txs, fork);
}

describe('EIP-7934 block size cap', () => {
  before(() => initEngine());

  test('the budget: typed txs count their string header, legacy ones are their own list; the bound is exact RLP', () => {
    assert.equal(txListBytes(Uint8Array.of(0x02, ...new Uint8Array(99))), 102);
    assert.equal(txListBytes(Uint8Array.of(0xf8, 0x62, ...new Uint8Array(0x62))), 100);
    // A header of HEADER_SIZE_BOUND bytes and no txs: list(header, [], [], []).
    assert.equal(blockSizeBound(0), 3 + HEADER_SIZE_BOUND + 3);
    const b = new BlockSizeBudget(CAP);
    const tx = new Uint8Array(1_000_000).fill(2);
    for (let i = 0; i < 8; i++) {
      assert.ok(b.fits(tx), `tx ${i}`);
      b.add(tx);
    }
    assert.equal(b.fits(tx), false);
    assert.equal(new BlockSizeBudget(0).fits(new Uint8Array(20_000_000).fill(2)), true);
  });

  test('a real header stays under the bound the builder keeps for it', () => {
    const raw = contextHeader(ctx, common).raw();
    assert.ok(rlpEncode(raw).length < HEADER_SIZE_BOUND, `${rlpEncode(raw).length} bytes`);
  });

  test('Osaka leaves the tx that would cross 8,388,608 bytes, and every later one, for a later block', () => {
    const txs = bigTxs(72);
    const osaka = run('Osaka', txs);
    const n = osaka.included.length;
    assert.ok(n > 60 && n < 72, `${n} included`);
    assert.equal(osaka.rejected.length, 72 - n);
    for (const r of osaka.rejected) {
      assert.equal(r.error.reason, 'blockSizeAboveCap');
      assert.equal(r.error.message, 'block RLP-encoded size exceeds maximum');
    }
    assert.deepEqual(
      osaka.rejected.map((r) => r.hash),
      txs.slice(n).map((t) => t.hash),
    );
    // The block as sealed fits; with the next tx it would not.
    const header = contextHeader(ctx, common).raw();
    const encoded = txs.map((t) => t.encoded!);
    assert.ok(blockSizeOf(header, encoded.slice(0, n)) <= BigInt(CAP));
    assert.ok(blockSizeOf(header, encoded.slice(0, n + 1)) > BigInt(CAP));
    // Prague has no cap: all of them go in.
    const prague = run('Prague', txs);
    assert.equal(prague.included.length, 72);
    assert.ok(blockSizeOf(header, encoded) > BigInt(CAP));
  });
});
