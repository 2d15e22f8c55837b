// The decode cache with sender recovery on worker threads: warm() fills it with exactly what the inline decoder
// gives, recovers each tx once, and leaves every refusal to get(), which throws the inline decoder's error.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { createChainCommon } from '../../app/evm/common.ts';
import { decodeTx, prepareTx, recoveredTx, type RecoveryJob } from '../../app/evm/validate.ts';
import { testRules } from '../../app/evm/validate.testing.ts';
import { TxRejectedError } from '../../errors/index.ts';
import { SenderRecovery } from '../../mempool/recovery/workers.ts';
import { signedTestTxs, TEST_TX_COMMON, TX_SIGNERS } from '../../app/evm/signedTxs.testing.ts';
import { DecodeCache } from './decodeCache.ts';

const common = TEST_TX_COMMON;
const rules = testRules({ baseFee: 0n });
const accounts = TX_SIGNERS;

const valid = signedTestTxs(40);
/** Passes every value check, but r = 5 is no point's x coordinate: the recovery itself fails ("invalid sender"). */
const unrecoverable = createFeeMarket1559Tx(
  { chainId: 9000n, nonce: 0n, gasLimit: 21_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, v: 0n, r: 5n, s: 1n },
  { common },
).serialize();
const wrongChain = createLegacyTx({ nonce: 0n, gasLimit: 21_000n, gasPrice: 10n }, { common: createChainCommon(1n) })
  .sign(accounts[0]!.privateKey)
  .serialize();
const garbage = Uint8Array.of(0x02, 0xc0);
/** A block's worth: the refusals among the valid txs, as a proposal may hold them. */
const block = [...valid.slice(0, 20), unrecoverable, garbage, wrongChain, ...valid.slice(20)];

/** What get() gives or throws, in comparable form. */
function outcome(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (e) {
    assert.ok(e instanceof TxRejectedError);
    return { reason: e.reason, message: e.message };
  }
}

const pools: SenderRecovery[] = [];
after(async () => {
  for (const p of pools) await p.close();
});

/** A cache over the inline decoder, recovering through `workers` worker threads; counts both paths' work. */
async function cacheWith(workers: number) {
  const pool = new SenderRecovery({ workers, minBatch: 1 });
  pools.push(pool);
  await pool.start();
  const counts = { inline: 0, offloaded: 0 };
  const cache = new DecodeCache(
    (raw) => {
      counts.inline++;
      return decodeTx(raw, rules);
    },
    undefined,
    undefined,
    {
      prepare: (raw) => prepareTx(raw, rules),
      recover: (job: RecoveryJob) => {
        counts.offloaded++;
        return pool.recover(job);
      },
      recovered: recoveredTx,
    },
  );
  return { cache, counts };
}

describe('DecodeCache with recovery workers', () => {
  for (const workers of [1, 2, 4]) {
    test(`${workers} worker(s): a warmed block decodes as inline, each sender recovered once, refusals unchanged`, async () => {
      const { cache, counts } = await cacheWith(workers);
      await cache.warm(block);
      // The 40 valid txs and the unrecoverable one reach recovery; the undecodable and wrong-chain ones do not.
      assert.equal(counts.offloaded, 41);
      assert.equal(cache.size, 40);
      const got = block.map((raw) => outcome(() => cache.get(raw)));
      const inline = block.map((raw) => outcome(() => decodeTx(raw, rules)));
      assert.deepEqual(got, inline);
      assert.deepEqual(got[20], { reason: 'invalidSender', message: 'invalid sender' });
      assert.equal((got[21] as { reason: string }).reason, 'malformed');
      assert.equal((got[23] as { sender: Uint8Array }).sender.length, 20);
      // Only the three refusals were decoded inline (to throw their own error); a second warm recovers nothing.
      assert.equal(counts.inline, 3);
      await cache.warm(block);
      assert.equal(counts.offloaded, 42); // the unrecoverable one again: refusals are not cached
    });
  }

  test('settled() waits for a running warm() instead of decoding again', async () => {
    const { cache, counts } = await cacheWith(2);
    const warming = cache.warm(valid);
    const first = await cache.settled(valid[7]!);
    assert.deepEqual(first, decodeTx(valid[7]!, rules));
    await warming;
    assert.equal(counts.inline, 0);
    assert.equal(counts.offloaded, 40);
    await assert.rejects(cache.settled(garbage), (e) => e instanceof TxRejectedError && e.reason === 'malformed');
  });

  test('a seeded tx (decoded by the submit path) is found under its raw bytes without decoding', async () => {
    const { cache, counts } = await cacheWith(1);
    const item = decodeTx(valid[3]!, rules);
    cache.seed({ ...item, stateNonce: 0n } as typeof item);
    assert.deepEqual(cache.get(valid[3]!), item);
    assert.equal(Object.keys(cache.get(valid[3]!)).sort().join(), 'encoded,hash,sender,tx');
    assert.equal(counts.inline + counts.offloaded, 0);
  });

  test('without workers warm() does nothing and get() decodes inline', async () => {
    let inline = 0;
    const cache = new DecodeCache((raw) => {
      inline++;
      return decodeTx(raw, rules);
    });
    await cache.warm(valid);
    assert.equal(cache.size, 0);
    assert.deepEqual(cache.get(valid[0]!), decodeTx(valid[0]!, rules));
    assert.equal(inline, 1);
  });
});
