import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { CommittedBlock, KestrelApp } from '../../app/app.ts';
import { createChainCommon } from '../../app/evm/common.ts';
import type { StateDb } from '../../app/state/stateDb.ts';
import { deriveAccounts, DEV_MNEMONIC, type DevAccount } from '../../keys/devAccounts.ts';
import { TxPool } from '../../mempool/pool.ts';
import type { KvStore } from '../../store/kv.ts';
import { openTestApp } from '../../../test/helpers/app.ts';
import { SoloEngine } from './engine.ts';

const common = createChainCommon(9000n);
const GWEI = 1_000_000_000n;
const dev = deriveAccounts(DEV_MNEMONIC, 10);
const sink = new Uint8Array(20).fill(0x42);

describe('SoloEngine', () => {
  let dir: string;
  let kv: KvStore;
  let state: StateDb;
  let app: KestrelApp;
  const committed: CommittedBlock[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-engine-'));
    ({ kv, state, app } = await openTestApp(join(dir, 'db')));
    app.onCommit((c) => committed.push(c));
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function stateNonce(a: DevAccount): Promise<bigint> {
    return state.readView(app.head.header.stateRoot).account(a.address)?.nonce ?? 0n;
  }

  /** Checks and pools `count` txs of `from` starting at `nonce` (no notify). */
  async function submit(pool: TxPool, from: DevAccount, nonce: bigint, count: number): Promise<void> {
    const sn = await stateNonce(from);
    for (let i = 0n; i < BigInt(count); i++) {
      const raw = createFeeMarket1559Tx(
        {
          nonce: nonce + i,
          to: sink,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
        },
        { common },
      )
        .sign(from.privateKey)
        .serialize();
      pool.add(await app.checkTx(raw), sn);
    }
  }

  async function until(cond: () => boolean, ms = 3000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the engine');
      await sleep(5);
    }
  }

  test('instant mode batches everything pending into few blocks after one notify, and makes no empty blocks', async () => {
    const pool = new TxPool();
    const engine = new SoloEngine(app, pool, 0);
    engine.start();
    const start = app.head.number;
    engine.notify(); // nothing pending: no block
    await sleep(50);
    assert.equal(app.head.number, start);

    for (const a of dev.slice(0, 5)) await submit(pool, a, 0n, 10);
    assert.deepEqual(pool.counts(), { pending: 50, queued: 0 });
    const before = committed.length;
    engine.notify();
    await until(() => pool.counts().pending === 0);
    const made = committed.slice(before);
    assert.ok(made.length >= 1 && made.length <= 3, `${made.length} blocks`);
    assert.equal(
      made.reduce((s, c) => s + c.block.txs.length, 0),
      50,
    );
    assert.ok(made.every((c) => c.block.txs.length > 0 && c.receipts.every((r) => r.status === 1)));
    const mined = app.head.number;
    await sleep(300);
    assert.equal(app.head.number, mined, 'no empty blocks in instant mode');
    for (const a of dev.slice(0, 5)) assert.equal(await stateNonce(a), 10n);
    await engine.stop();
  });

  test('instant mode coalesces notifies that arrive while a block is being made', async () => {
    const pool = new TxPool();
    const engine = new SoloEngine(app, pool, 0);
    engine.start();
    const before = committed.length;
    for (let i = 0n; i < 5n; i++) {
      await submit(pool, dev[5]!, i, 1);
      engine.notify();
    }
    await until(() => pool.counts().pending === 0);
    await engine.stop();
    const made = committed.slice(before);
    assert.equal(
      made.reduce((s, c) => s + c.block.txs.length, 0),
      5,
    );
    assert.ok(made.length <= 5 && made.every((c) => c.block.txs.length > 0));
  });

  test('instant mode lets the admissions in flight land in the block it seals, waiting a bounded time', async () => {
    const pool = new TxPool();
    const engine = new SoloEngine(app, pool, 0);
    let inFlight = 0;
    let settle: (() => void) | undefined;
    const admissions = {
      get admissionsInFlight() {
        return inFlight;
      },
      admissionsSettled: () => new Promise<void>((r) => (settle = r)),
    };
    // A bound far above any test's pace first, so the wait is seen ending with the admissions.
    engine.useAdmissions(admissions, 60_000);
    engine.start();
    try {
      const before = committed.length;
      // One tx pooled and notified while two more are still being admitted: the block waits for them.
      inFlight = 2;
      await submit(pool, dev[9]!, 0n, 1);
      engine.notify();
      await sleep(50);
      assert.equal(committed.length, before, 'no block while the admissions are in flight');
      await submit(pool, dev[9]!, 1n, 2);
      inFlight = 0;
      settle!();
      await until(() => pool.counts().pending === 0);
      assert.deepEqual(
        committed.slice(before).map((c) => c.block.txs.length),
        [3],
      );
      // An admission that never ends holds the block back only for the bound.
      engine.useAdmissions(admissions, 20);
      inFlight = 1;
      await submit(pool, dev[9]!, 3n, 1);
      const t0 = Date.now();
      engine.notify();
      await until(() => pool.counts().pending === 0);
      assert.ok(Date.now() - t0 < 1000, `sealed after ${Date.now() - t0} ms`);
    } finally {
      await engine.stop();
    }
  });

  test('queued txs (nonce gap) do not trigger a block', async () => {
    const pool = new TxPool();
    const engine = new SoloEngine(app, pool, 0);
    engine.start();
    const start = app.head.number;
    await submit(pool, dev[6]!, 3n, 1);
    engine.notify();
    await sleep(50);
    assert.equal(app.head.number, start);
    await engine.stop();
  });

  test('interval mode seals empty blocks on the timer', async () => {
    const pool = new TxPool();
    const engine = new SoloEngine(app, pool, 200);
    const start = app.head.number;
    const startTime = app.head.header.timestamp;
    engine.start();
    await sleep(700);
    await engine.stop();
    const made = Number(app.head.number - start);
    assert.ok(made >= 2 && made <= 4, `${made} blocks in ~700 ms at 200 ms`);
    for (const c of committed.slice(-made)) {
      assert.equal(c.block.txs.length, 0);
      assert.ok(c.block.header.timestamp > startTime);
    }
    await sleep(250);
    assert.equal(Number(app.head.number - start), made, 'no blocks after stop()');
  });

  test('interval mode includes pending txs on the next tick', async () => {
    const pool = new TxPool();
    const engine = new SoloEngine(app, pool, 200);
    engine.start();
    await submit(pool, dev[7]!, 0n, 3);
    engine.notify(); // ignored in interval mode
    await until(() => pool.counts().pending === 0, 2000);
    await engine.stop();
    assert.equal(await stateNonce(dev[7]!), 3n);
  });

  test('stop() waits for the block in progress to commit', async () => {
    const pool = new TxPool();
    const engine = new SoloEngine(app, pool, 0);
    engine.start();
    const start = app.head.number;
    await submit(pool, dev[8]!, 0n, 20);
    engine.notify();
    await engine.stop();
    assert.equal(app.head.number, start + 1n, 'the block started before stop() is committed');
    assert.equal(pool.counts().pending, 0);
    // the app is not left half-way through a block
    await app.finalizeBlock({ txs: [], time: 0n });
    await app.commit();
    await submit(pool, dev[8]!, 20n, 1);
    engine.notify();
    await sleep(50);
    assert.equal(app.head.number, start + 2n, 'a stopped engine seals nothing');
  });
});
