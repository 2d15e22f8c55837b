import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { KestrelApp } from '../app/app.ts';
import { createChainCommon } from '../app/evm/common.ts';
import type { ExecTx } from '../app/evm/executor.ts';
import { decodeTx, type AdmissionRules } from '../app/evm/validate.ts';
import { makeGenesisDoc, parseGenesis } from '../app/genesis.ts';
import { StateDb } from '../app/state/stateDb.ts';
import { TxRejectedError } from '../errors/index.ts';
import { deriveAccounts, DEV_MNEMONIC, type DevAccount } from '../keys/devAccounts.ts';
import { ChainStore } from '../store/chainStore.ts';
import { KvStore } from '../store/kv.ts';
import { TxPool } from './pool.ts';

const common = createChainCommon(9000n);
const GWEI = 1_000_000_000n;
const rules: AdmissionRules = { evmChainId: 9000n, blockGasLimit: 30_000_000n, baseFee: GWEI, minGasPrice: 0n };
const [alice, bob, carol] = deriveAccounts(DEV_MNEMONIC, 3) as [DevAccount, DevAccount, DevAccount];
const sink = new Uint8Array(20).fill(0x5a);

function tx(from: DevAccount, nonce: bigint, o: { fee?: bigint; tip?: bigint; gas?: bigint } = {}): ExecTx {
  const t = createFeeMarket1559Tx(
    { nonce, gasLimit: o.gas ?? 21_000n, maxFeePerGas: o.fee ?? 10n * GWEI, maxPriorityFeePerGas: o.tip ?? GWEI, to: sink, value: 1n },
    { common },
  ).sign(from.privateKey);
  return decodeTx(t.serialize(), common, rules);
}

const rejects = (fn: () => unknown, msg: string) =>
  assert.throws(fn, (e: unknown) => e instanceof TxRejectedError && e.message === msg, msg);
const nonces = (txs: ExecTx[]) => txs.map((t) => `${t.sender[19] === alice.address[19] ? 'a' : t.sender[19] === bob.address[19] ? 'b' : 'c'}${t.tx.nonce}`);

describe('TxPool admission', () => {
  test('pending vs queued across a nonce gap; filling the gap promotes', () => {
    const pool = new TxPool();
    assert.equal(pool.add(tx(alice, 0n), 0n), 'pending');
    assert.equal(pool.add(tx(alice, 2n), 0n), 'queued');
    assert.equal(pool.add(tx(alice, 3n), 0n), 'queued');
    assert.deepEqual(pool.counts(), { pending: 1, queued: 2 });
    assert.equal(pool.pendingNonce(alice.address, 0n), 1n);
    assert.equal(pool.add(tx(alice, 1n), 0n), 'pending');
    assert.deepEqual(pool.counts(), { pending: 4, queued: 0 });
    assert.equal(pool.pendingNonce(alice.address, 0n), 4n);
    assert.equal(pool.pendingNonce(bob.address, 7n), 7n, 'unknown sender: its state nonce');
    assert.ok(pool.hasPending());
  });

  test('a sender whose state nonce is ahead of zero', () => {
    const pool = new TxPool();
    assert.equal(pool.add(tx(bob, 5n), 5n), 'pending');
    assert.equal(pool.add(tx(bob, 7n), 5n), 'queued');
    assert.deepEqual(pool.counts(), { pending: 1, queued: 1 });
  });

  test('only queued txs → nothing pending', () => {
    const pool = new TxPool();
    pool.add(tx(alice, 1n), 0n);
    assert.equal(pool.hasPending(), false);
    assert.deepEqual(pool.executable(30_000_000n), []);
  });

  test('already known', () => {
    const pool = new TxPool();
    const t = tx(alice, 0n);
    pool.add(t, 0n);
    rejects(() => pool.add(t, 0n), 'already known');
    assert.equal(pool.get(t.hash), pool.get(t.hash));
    assert.deepEqual(pool.get(t.hash)?.hash, t.hash);
  });

  test('replacement needs a 10% bump of both fee cap and tip cap', () => {
    const pool = new TxPool();
    const orig = tx(alice, 0n, { fee: 100n * GWEI, tip: 10n * GWEI });
    pool.add(orig, 0n);
    rejects(() => pool.add(tx(alice, 0n, { fee: 109n * GWEI, tip: 11n * GWEI }), 0n), 'replacement transaction underpriced');
    rejects(() => pool.add(tx(alice, 0n, { fee: 110n * GWEI, tip: 10n * GWEI + 1n }), 0n), 'replacement transaction underpriced');
    rejects(() => pool.add(tx(alice, 0n, { fee: 100n * GWEI, tip: 10n * GWEI }), 0n), 'already known');
    const repl = tx(alice, 0n, { fee: 110n * GWEI, tip: 11n * GWEI });
    assert.equal(pool.add(repl, 0n), 'pending');
    assert.equal(pool.get(orig.hash), undefined, 'the replaced tx is gone');
    assert.ok(pool.get(repl.hash));
    assert.deepEqual(pool.counts(), { pending: 1, queued: 0 });
    assert.deepEqual(pool.executable(30_000_000n).map((t) => t.hash), [repl.hash]);
    // the replaced tx may come back only with another bump
    rejects(() => pool.add(orig, 0n), 'replacement transaction underpriced');
  });

  test('limits: per sender and total', () => {
    const pool = new TxPool({ maxTxs: 3, maxPerSender: 2, priceBumpPercent: 10n });
    pool.add(tx(alice, 0n), 0n);
    pool.add(tx(alice, 1n), 0n);
    rejects(() => pool.add(tx(alice, 2n), 0n), 'account limit exceeded');
    pool.add(tx(bob, 0n), 0n);
    rejects(() => pool.add(tx(carol, 0n), 0n), 'txpool is full');
    pool.add(tx(alice, 1n, { fee: 20n * GWEI, tip: 2n * GWEI }), 0n); // replacement still allowed when full
  });
});

describe('TxPool.executable', () => {
  test('keeps each sender in nonce order and merges senders by tip', () => {
    const pool = new TxPool();
    pool.add(tx(alice, 1n, { tip: 9n * GWEI }), 0n); // high tip, but after nonce 0
    pool.add(tx(alice, 0n, { tip: 1n * GWEI }), 0n);
    pool.add(tx(bob, 0n, { tip: 5n * GWEI }), 0n);
    pool.add(tx(bob, 1n, { tip: 2n * GWEI }), 0n);
    pool.add(tx(carol, 0n, { tip: 3n * GWEI }), 0n);
    pool.add(tx(carol, 2n, { tip: 8n * GWEI }), 0n); // queued: never executable
    assert.deepEqual(nonces(pool.executable(30_000_000n)), ['b0', 'c0', 'b1', 'a0', 'a1']);
  });

  test('respects the gas limit without breaking a sender\'s nonce order', () => {
    const pool = new TxPool();
    pool.add(tx(alice, 0n, { tip: 9n * GWEI, gas: 100_000n }), 0n);
    pool.add(tx(alice, 1n, { tip: 9n * GWEI, gas: 21_000n }), 0n);
    pool.add(tx(bob, 0n, { tip: 5n * GWEI, gas: 50_000n }), 0n);
    pool.add(tx(bob, 1n, { tip: 5n * GWEI, gas: 50_000n }), 0n);
    pool.add(tx(carol, 0n, { tip: 1n * GWEI, gas: 21_000n }), 0n);
    assert.deepEqual(nonces(pool.executable(121_000n)), ['a0', 'a1']);
    // alice0 does not fit → none of alice's txs go, others still do
    assert.deepEqual(nonces(pool.executable(99_999n)), ['b0', 'c0']);
    assert.deepEqual(nonces(pool.executable(20_999n)), []);
    assert.equal(pool.counts().pending, 5, 'executable() does not remove anything');
  });
});

describe('TxPool.onCommitted (real app)', () => {
  let dir: string;
  let kv: KvStore;
  let app: KestrelApp;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-pool-'));
    kv = await KvStore.open(join(dir, 'db'));
    const genesis = parseGenesis(makeGenesisDoc({ chainId: 'kestrel_9000-1', evmDenom: 'akestrel', prefix: 'kestrel', dev: true, now: new Date('2024-01-01T00:00:00Z') }), 'kestrel');
    // A variable, not a literal: AppDeps is gaining fields (vmCommon) and extra ones must not break the type check.
    const deps = {
      kv, chain: new ChainStore(kv, common), state: new StateDb(kv, common), common, vmCommon: () => createChainCommon(9000n),
      genesis, evmChainId: 9000n, minGasPrice: 0n, etherbase: new Uint8Array(20).fill(0xee),
    };
    app = await KestrelApp.open(deps);
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function mine(pool: TxPool) {
    const res = await app.finalizeBlock({ txs: pool.executable(app.head.header.gasLimit), time: app.head.header.timestamp + 1n });
    const c = await app.commit();
    pool.onCommitted(c, res.rejected);
    return c;
  }

  test('removes mined txs, advances nonces and keeps queued ones', async () => {
    const pool = new TxPool();
    for (const n of [0n, 1n, 2n]) pool.add(tx(alice, n), 0n);
    pool.add(tx(alice, 4n), 0n);
    pool.add(tx(bob, 0n), 0n);
    const c = await mine(pool);
    assert.equal(c.block.txs.length, 4);
    assert.deepEqual(pool.counts(), { pending: 0, queued: 1 });
    for (const h of c.block.txHashes) assert.equal(pool.get(h), undefined);
    assert.equal(pool.pendingNonce(alice.address, 3n), 3n);
    assert.equal(pool.add(tx(alice, 3n), 3n), 'pending', 'gap filled after the block');
    assert.deepEqual(pool.counts(), { pending: 2, queued: 0 });
    assert.equal(pool.pendingNonce(alice.address, 3n), 5n);
    const c2 = await mine(pool);
    assert.equal(c2.block.txs.length, 2);
    assert.deepEqual(pool.counts(), { pending: 0, queued: 0 });
    assert.equal(pool.hasPending(), false);
  });

  test('a tx replaced while its predecessor was being mined leaves the pool', async () => {
    const pool = new TxPool();
    const a = tx(carol, 0n, { fee: 10n * GWEI, tip: GWEI });
    pool.add(a, 0n);
    const txs = pool.executable(app.head.header.gasLimit);
    const replacement = tx(carol, 0n, { fee: 20n * GWEI, tip: 2n * GWEI });
    pool.add(replacement, 0n); // arrives while the engine is building the block with `a`
    const res = await app.finalizeBlock({ txs, time: app.head.header.timestamp + 1n });
    pool.onCommitted(await app.commit(), res.rejected);
    assert.deepEqual(pool.counts(), { pending: 0, queued: 0 });
    assert.equal(pool.get(replacement.hash), undefined, 'the stale replacement must not stay visible');
  });
});
