import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { KestrelApp } from '../app/app.ts';
import { createChainCommon } from '../app/evm/common.ts';
import type { ExecTx } from '../app/evm/executor.ts';
import { decodeTx } from '../app/evm/validate.ts';
import { testRules } from '../app/evm/validate.testing.ts';
import { TxRejectedError } from '../errors/index.ts';
import { deriveAccounts, DEV_MNEMONIC, type DevAccount } from '../keys/devAccounts.ts';
import type { KvStore } from '../store/kv.ts';
import { openTestApp } from '../../test/helpers/app.ts';
import { TxPool } from './pool.ts';

const common = createChainCommon(9000n);
const GWEI = 1_000_000_000n;
const rules = testRules();
const [alice, bob, carol] = deriveAccounts(DEV_MNEMONIC, 3) as [DevAccount, DevAccount, DevAccount];
const sink = new Uint8Array(20).fill(0x5a);

function tx(
  from: DevAccount,
  nonce: bigint,
  o: { fee?: bigint; tip?: bigint; gas?: bigint; value?: bigint } = {},
): ExecTx {
  const t = createFeeMarket1559Tx(
    {
      nonce,
      gasLimit: o.gas ?? 21_000n,
      maxFeePerGas: o.fee ?? 10n * GWEI,
      maxPriorityFeePerGas: o.tip ?? GWEI,
      to: sink,
      value: o.value ?? 1n,
    },
    { common },
  ).sign(from.privateKey);
  return decodeTx(t.serialize(), rules);
}

const rejects = (fn: () => unknown, msg: string) =>
  assert.throws(fn, (e: unknown) => e instanceof TxRejectedError && e.message === msg, msg);
const nonces = (txs: ExecTx[]) =>
  txs.map(
    (t) => `${t.sender[19] === alice.address[19] ? 'a' : t.sender[19] === bob.address[19] ? 'b' : 'c'}${t.tx.nonce}`,
  );

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
    rejects(
      () => pool.add(tx(alice, 0n, { fee: 109n * GWEI, tip: 11n * GWEI }), 0n),
      'replacement transaction underpriced',
    );
    rejects(
      () => pool.add(tx(alice, 0n, { fee: 110n * GWEI, tip: 10n * GWEI + 1n }), 0n),
      'replacement transaction underpriced',
    );
    rejects(() => pool.add(tx(alice, 0n, { fee: 100n * GWEI, tip: 10n * GWEI }), 0n), 'already known');
    const repl = tx(alice, 0n, { fee: 110n * GWEI, tip: 11n * GWEI });
    assert.equal(pool.add(repl, 0n), 'pending');
    assert.equal(pool.get(orig.hash), undefined, 'the replaced tx is gone');
    assert.ok(pool.get(repl.hash));
    assert.deepEqual(pool.counts(), { pending: 1, queued: 0 });
    assert.deepEqual(
      pool.executable(30_000_000n).map((t) => t.hash),
      [repl.hash],
    );
    // the replaced tx may come back only with another bump
    rejects(() => pool.add(orig, 0n), 'replacement transaction underpriced');
  });

  test('nonce below the state nonce is refused', () => {
    const pool = new TxPool();
    pool.add(tx(alice, 3n), 3n);
    rejects(() => pool.add(tx(alice, 2n), 3n), 'nonce too low');
    // a stale state nonce never moves the pool's view back
    assert.equal(pool.add(tx(alice, 4n), 1n), 'pending');
    assert.equal(pool.pendingNonce(alice.address, 1n), 5n);
  });
});

const quiet = () => {};

describe('TxPool bounds', () => {
  test('pending full: the cheapest pending tail of another sender is evicted, a cheaper newcomer refused', () => {
    const pool = new TxPool({ globalSlots: 3, accountSlots: 16 }, quiet);
    pool.add(tx(alice, 0n, { fee: 10n * GWEI }), 0n);
    pool.add(tx(alice, 1n, { fee: 12n * GWEI }), 0n);
    const bob0 = tx(bob, 0n, { fee: 11n * GWEI });
    pool.add(bob0, 0n);
    rejects(() => pool.add(tx(carol, 0n, { fee: 10n * GWEI }), 0n), 'transaction underpriced');
    rejects(() => pool.add(tx(carol, 0n, { fee: 11n * GWEI }), 0n), 'transaction underpriced'); // ties lose
    // the tails are alice1 (12) and bob0 (11): bob0 is the cheapest evictable one
    const c0 = tx(carol, 0n, { fee: 20n * GWEI });
    assert.equal(pool.add(c0, 0n), 'pending');
    assert.equal(pool.get(bob0.hash), undefined);
    assert.deepEqual(pool.counts(), { pending: 3, queued: 0 });
    // a sender cannot evict its own txs to make room
    rejects(() => pool.add(tx(carol, 1n, { fee: 1n * GWEI }), 0n), 'transaction underpriced');
  });

  test('pending full: an account over its guaranteed slots gives up its highest nonce first', () => {
    const pool = new TxPool({ globalSlots: 4, accountSlots: 2 }, quiet);
    for (const n of [0n, 1n, 2n]) pool.add(tx(alice, n, { fee: 50n * GWEI }), 0n);
    pool.add(tx(bob, 0n, { fee: 10n * GWEI }), 0n);
    const c0 = tx(carol, 0n, { fee: 5n * GWEI }); // cheapest of all, still gets in: alice holds 3 > 2 slots
    assert.equal(pool.add(c0, 0n), 'pending');
    assert.equal(pool.pendingNonce(alice.address, 0n), 2n, 'alice2 was evicted');
    assert.deepEqual(pool.counts(), { pending: 4, queued: 0 });
  });

  test('filling a gap promotes queued txs, and they count against the pending bound', () => {
    const pool = new TxPool({ globalSlots: 3 }, quiet);
    pool.add(tx(alice, 1n), 0n);
    pool.add(tx(alice, 2n), 0n);
    pool.add(tx(bob, 0n, { fee: 20n * GWEI }), 0n);
    pool.add(tx(bob, 1n, { fee: 20n * GWEI }), 0n);
    assert.deepEqual(pool.counts(), { pending: 2, queued: 2 });
    // alice0 would make 3 txs pending (0, 1, 2) → 5 > 3; bob's txs pay more than alice0 → refused
    rejects(() => pool.add(tx(alice, 0n), 0n), 'transaction underpriced');
    assert.deepEqual(pool.counts(), { pending: 2, queued: 2 }, 'nothing changed');
  });

  test('queued bounds: per account refused, global evicts the cheapest queued of another sender', () => {
    const pool = new TxPool({ accountQueue: 2, globalQueue: 3 }, quiet);
    pool.add(tx(alice, 5n, { fee: 10n * GWEI }), 0n);
    pool.add(tx(alice, 6n, { fee: 10n * GWEI }), 0n);
    rejects(() => pool.add(tx(alice, 7n), 0n), 'account limit exceeded');
    const b5 = tx(bob, 5n, { fee: 9n * GWEI });
    pool.add(b5, 0n);
    rejects(() => pool.add(tx(carol, 5n, { fee: 9n * GWEI }), 0n), 'transaction underpriced');
    assert.equal(pool.add(tx(carol, 5n, { fee: 30n * GWEI }), 0n), 'queued');
    assert.equal(pool.get(b5.hash), undefined, 'the cheapest queued tx was evicted');
    assert.deepEqual(pool.counts(), { pending: 0, queued: 3 });
    // queued newcomers never push out pending txs, and pending ones are not bounded by the queue
    assert.equal(pool.add(tx(bob, 0n, { fee: 1n * GWEI }), 0n), 'pending');
  });

  test('replacement is allowed when full', () => {
    const pool = new TxPool({ globalSlots: 1 }, quiet);
    pool.add(tx(alice, 0n), 0n);
    pool.add(tx(alice, 0n, { fee: 20n * GWEI, tip: 2n * GWEI }), 0n);
    assert.deepEqual(pool.counts(), { pending: 1, queued: 0 });
  });

  test('queued txs expire after the lifetime; pending ones do not', () => {
    const pool = new TxPool({ lifetimeMs: 1000 }, quiet);
    pool.add(tx(alice, 0n), 0n, 0);
    pool.add(tx(alice, 2n), 0n, 0);
    pool.add(tx(alice, 3n), 0n, 600);
    assert.equal(pool.expireQueued(999), 0);
    assert.equal(pool.expireQueued(1000), 1);
    assert.deepEqual(pool.counts(), { pending: 1, queued: 1 });
    assert.equal(pool.expireQueued(10_000), 1);
    assert.deepEqual(pool.counts(), { pending: 1, queued: 0 });
  });

  test('remove() demotes the later nonces to queued', () => {
    const pool = new TxPool();
    const a1 = tx(alice, 1n);
    for (const t of [tx(alice, 0n), a1, tx(alice, 2n)]) pool.add(t, 0n);
    assert.ok(pool.remove(a1.hash));
    assert.deepEqual(pool.counts(), { pending: 1, queued: 1 });
    const c = pool.contentFrom(alice.address);
    assert.deepEqual([c.pending.map((t) => t.tx.nonce), c.queued.map((t) => t.tx.nonce)], [[0n], [2n]]);
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

  test("respects the gas limit without breaking a sender's nonce order", () => {
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

describe('TxPool.executable at a base fee', () => {
  test('orders by effective tip and holds back txs under the base fee or the minimum gas price', () => {
    const pool = new TxPool();
    pool.add(tx(alice, 0n, { fee: 12n * GWEI, tip: 5n * GWEI }), 0n); // at base fee 10: effective tip 2
    pool.add(tx(bob, 0n, { fee: 20n * GWEI, tip: 3n * GWEI }), 0n); // effective tip 3
    pool.add(tx(carol, 0n, { fee: 9n * GWEI, tip: 1n * GWEI }), 0n); // under the base fee: waits
    pool.add(tx(carol, 1n, { fee: 90n * GWEI, tip: 9n * GWEI }), 0n); // behind carol0: waits too
    assert.deepEqual(nonces(pool.executable(30_000_000n)), ['a0', 'b0', 'c0', 'c1'], 'no base fee: by tip cap');
    assert.deepEqual(nonces(pool.executable(30_000_000n, { baseFee: 10n * GWEI })), ['b0', 'a0']);
    assert.deepEqual(nonces(pool.executable(30_000_000n, { baseFee: 0n, minGasPrice: 15n * GWEI })), ['b0']);
    assert.equal(pool.counts().pending, 4);
  });
});

test('a tx left out of a full block (gas or EIP-7934 size) stays pooled; one the engine refused goes', () => {
  const pool = new TxPool({}, () => {});
  const full = [tx(alice, 0n), tx(bob, 0n)];
  const bad = tx(carol, 0n);
  for (const t of [...full, bad]) pool.add(t, 0n);
  const empty = { block: { txs: [], senders: [] } } as unknown as Parameters<TxPool['onCommitted']>[0];
  pool.onCommitted(empty, [
    { hash: full[0]!.hash, error: new TxRejectedError('gasLimitAboveBlock', 'exceeds block gas limit') },
    { hash: full[1]!.hash, error: new TxRejectedError('blockSizeAboveCap', 'block RLP-encoded size exceeds maximum') },
    { hash: bad.hash, error: new TxRejectedError('other', 'insufficient funds for gas * price + value') },
  ]);
  for (const t of full) assert.ok(pool.get(t.hash));
  assert.equal(pool.get(bad.hash), undefined);
});

describe('TxPool.onCommitted (real app)', () => {
  let dir: string;
  let kv: KvStore;
  let app: KestrelApp;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-pool-'));
    ({ kv, app } = await openTestApp(join(dir, 'db')));
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function mine(pool: TxPool) {
    const res = await app.finalizeBlock({
      txs: pool.executable(app.head.header.gasLimit),
      time: app.head.header.timestamp + 1n,
    });
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

  test('a tx that became invalid is skipped and dropped with a log line; the later nonces wait queued', async () => {
    const lines: string[] = [];
    const pool = new TxPool({}, (l) => lines.push(l));
    const [, , , dave] = deriveAccounts(DEV_MNEMONIC, 4) as DevAccount[];
    const ETH = 10n ** 18n;
    // each passes admission alone (10000 ETH), but the second cannot pay once the first ran
    pool.add(tx(dave!, 0n, { value: 6000n * ETH }), 0n);
    const bad = tx(dave!, 1n, { value: 6000n * ETH });
    pool.add(bad, 0n);
    const later = tx(dave!, 2n);
    pool.add(later, 0n);
    const c = await mine(pool);
    assert.equal(c.block.txs.length, 1);
    assert.equal(pool.get(bad.hash), undefined);
    assert.equal(lines.length, 1);
    // The engine's refusal, in geth's words.
    assert.equal(
      lines[0],
      `txpool: dropping 0x${Buffer.from(bad.hash).toString('hex')}: insufficient funds for gas * price + value`,
    );
    assert.ok(pool.get(later.hash), 'the later nonce stays');
    assert.deepEqual(pool.counts(), { pending: 0, queued: 1 });
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
