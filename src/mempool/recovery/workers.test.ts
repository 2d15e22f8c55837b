import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { decodeTx, prepareTx, recoveredTx, type RecoveryJob } from '../../app/evm/validate.ts';
import { testRules } from '../../app/evm/validate.testing.ts';
import { TxRejectedError } from '../../errors/index.ts';
import { signedTestTxs, TX_SIGNERS } from '../../app/evm/signedTxs.testing.ts';
import { MAIN_SHARE_FROM, SenderRecovery } from './workers.ts';

const rules = testRules({ baseFee: 0n });
const accounts = TX_SIGNERS;

/** 40 signed txs (legacy and 1559, four senders) and the senders decodeTx recovers on this thread. */
const raws = signedTestTxs(40);
const jobs = raws.map((r) => prepareTx(r, rules).job!);

/** Jobs whose signatures recover no key: r = 0, r at the group order, s = 0. */
function broken(job: RecoveryJob, edit: (sig: Uint8Array) => void): RecoveryJob {
  const sig = job.sig.slice();
  edit(sig);
  return { ...job, sig };
}
const N = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
const bad = [
  broken(jobs[0]!, (s) => s.fill(0, 0, 32)),
  broken(jobs[1]!, (s) => s.set(N, 0)),
  broken(jobs[2]!, (s) => s.fill(0, 32, 64)),
];

const pools: SenderRecovery[] = [];
after(async () => {
  for (const p of pools) await p.close();
});

/** Recovers every job through `pool` at once (one turn), each outcome a key or the rejection. */
function settleAll(pool: SenderRecovery, list: RecoveryJob[]): Promise<Array<Uint8Array | Error>> {
  return Promise.all(list.map((j) => pool.recover(j).catch((e: Error) => e)));
}

describe('SenderRecovery', () => {
  for (const workers of [0, 1, 2, 4]) {
    test(`${workers} worker(s): the same senders as decodeTx, "invalid sender" for unrecoverable signatures`, async () => {
      const pool = new SenderRecovery({ workers, minBatch: 1 });
      pools.push(pool);
      await pool.start();
      assert.equal(pool.size, workers);
      const mixed = [...jobs.slice(0, 20), ...bad, ...jobs.slice(20)];
      const out = await settleAll(pool, mixed);
      const keys = out.filter((o) => o instanceof Uint8Array);
      const errors = out.filter((o) => o instanceof Error);
      assert.equal(keys.length, 40);
      assert.equal(errors.length, 3);
      for (const e of errors) {
        assert.ok(e instanceof TxRejectedError);
        assert.equal(e.message, 'invalid sender');
        assert.equal(e.reason, 'invalidSender');
      }
      keys.forEach((pub, i) => {
        const u = prepareTx(raws[i]!, rules);
        assert.deepEqual(recoveredTx(u, pub).sender, decodeTx(raws[i]!, rules).sender);
      });
      assert.deepEqual(out.slice(20, 23), errors);
    });
  }

  for (const workers of [1, 2]) {
    test(`${workers} worker(s): a block-sized batch is shared with the main thread, results and order unchanged`, async () => {
      const pool = new SenderRecovery({ workers, minBatch: 1 });
      pools.push(pool);
      await pool.start();
      const small = await settleAll(pool, jobs.slice(0, MAIN_SHARE_FROM - 1));
      assert.equal(pool.inlineJobs, 0);
      assert.ok(small.every((k) => k instanceof Uint8Array));
      // A block's worth: the 40 jobs repeated with the unrecoverable ones among them.
      const block = [...jobs, ...jobs, ...bad, ...jobs];
      const out = await settleAll(pool, block);
      const share = Math.ceil(block.length / (workers + 1));
      assert.equal(pool.inlineJobs, share);
      const alone = await settleAll(new SenderRecovery({ workers: 0, minBatch: 1 }), block);
      assert.deepEqual(out, alone);
      assert.ok(out[80] instanceof TxRejectedError);
    });
  }

  test('hands keys back in submission order across batches and workers', async () => {
    const pool = new SenderRecovery({ workers: 2, minBatch: 1 });
    pools.push(pool);
    await pool.start();
    const seen: number[] = [];
    const first = jobs.slice(0, 30).map((j, i) => pool.recover(j).then(() => seen.push(i)));
    await new Promise((r) => setImmediate(r));
    const second = jobs.slice(30).map((j, i) => pool.recover(j).then(() => seen.push(30 + i)));
    await Promise.all([...first, ...second]);
    assert.deepEqual(
      seen,
      jobs.map((_, i) => i),
    );
  });

  test('workers start with the first job, which is recovered inline meanwhile', async () => {
    const pool = new SenderRecovery({ workers: 1, minBatch: 1 });
    pools.push(pool);
    assert.equal(pool.size, 0);
    const first = await settleAll(pool, jobs.slice(0, 5));
    assert.equal(pool.size, 1);
    const u = prepareTx(raws[4]!, rules);
    assert.deepEqual(recoveredTx(u, first[4] as Uint8Array).sender, accounts[0]!.address);
    await pool.start();
    assert.equal((await settleAll(pool, jobs)).filter((k) => k instanceof Uint8Array).length, jobs.length);
  });

  test('a batch below minBatch is recovered inline; close() recovers what is still in hand', async () => {
    const pool = new SenderRecovery({ workers: 1, minBatch: 8 });
    pools.push(pool);
    await pool.start();
    const small = await settleAll(pool, jobs.slice(0, 3));
    assert.ok(small.every((k) => k instanceof Uint8Array));
    const pending = settleAll(pool, jobs);
    await pool.close();
    const all = await pending;
    assert.equal(all.filter((k) => k instanceof Uint8Array).length, jobs.length);
    assert.equal(pool.size, 0);
  });
});
