// The transaction pool through a real kestreld: nonce gaps (queued) and promotion, replacement, the bounds with
// eviction, queued expiry, geth's txpool_ shapes, pending txs in eth_ methods, the journal across kill -9, and
// interval mode where pending txs are observable before a block takes them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { getAddress } from 'ethers';
import { setTomlValue } from '../../src/config/appToml.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import {
  type KestrelNode,
  printLogsOnFailure,
  REPO_ROOT,
  rpc,
  rpcResult,
  sleep,
  startNode,
  waitFor,
  waitForReceipt,
} from '../helpers/node.ts';
import { signTx } from '../helpers/tx.ts';

const GWEI = 1_000_000_000n;
const SINK = '0x00000000000000000000000000000000000000b0';
const PAUSED = ['--block-time', '1h']; // blocks only on the hour: the pool stays as the test leaves it
const A = DEV_ACCOUNTS;

/** Signs a 1-wei transfer from dev account `i` with an explicit nonce and fee cap (tip = fee / 10). */
async function transfer(
  node: KestrelNode,
  i: number,
  nonce: number,
  fee = 10n * GWEI,
  o: { to?: string | null; gas?: bigint; tip?: bigint } = {},
) {
  return signTx(node.http, A[i]!.privateKey, {
    nonce,
    to: o.to === undefined ? SINK : o.to,
    value: o.to === null ? 0n : 1n,
    gas: o.gas ?? 21_000n,
    maxFeePerGas: fee,
    maxPriorityFeePerGas: o.tip ?? fee / 10n,
  });
}

async function send(node: KestrelNode, raw: string): Promise<string> {
  return rpcResult<string>(node.http, 'eth_sendRawTransaction', [raw]);
}

async function sendError(node: KestrelNode, raw: string): Promise<{ code: number; message: string }> {
  const r = await rpc(node.http, 'eth_sendRawTransaction', [raw]);
  assert.ok(r.error, `expected an error, got ${JSON.stringify(r.result)}`);
  return r.error;
}

const status = async (node: KestrelNode) => rpcResult<{ pending: string; queued: string }>(node.http, 'txpool_status');
const nonceKeys = (m: Record<string, unknown> | undefined) =>
  Object.keys(m ?? {}).sort((a, b) => Number(a) - Number(b));

/** A home made by `kestreld init --dev` with app.toml [mempool] edited before the first start. */
function homeWith(mempool: Record<string, string | number>): { base: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-txpool-'));
  const home = join(base, 'home');
  const r = spawnSync(process.execPath, ['bin/kestreld.js', 'init', '--dev', '--home', home], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  for (const [k, v] of Object.entries(mempool)) setTomlValue(join(home, 'config', 'app.toml'), 'mempool', k, v);
  return { base, home };
}

describe('txpool: gaps, promotion, replacement, shapes, journal', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  before(async () => {
    node = await startNode({ args: PAUSED });
  });
  after(async () => node?.dispose());
  afterEach(printLogsOnFailure(() => node));

  it('a nonce gap queues, filling it promotes; pending counts in eth_getTransactionCount', async () => {
    const from = A[1]!.address;
    const t0 = await transfer(node, 1, 0);
    const t2 = await transfer(node, 1, 2);
    const t3 = await transfer(node, 1, 3);
    assert.equal(await send(node, t0.raw), t0.hash);
    assert.equal(await send(node, t2.raw), t2.hash);
    assert.equal(await send(node, t3.raw), t3.hash);
    assert.deepEqual(await status(node), { pending: '0x1', queued: '0x2' });
    assert.equal(await rpcResult(node.http, 'eth_getTransactionCount', [from, 'pending']), '0x1');
    assert.equal(await rpcResult(node.http, 'eth_getTransactionCount', [from, 'latest']), '0x0');
    const queuedTx = await rpcResult<any>(node.http, 'eth_getTransactionByHash', [t2.hash]);
    assert.equal(queuedTx.hash, t2.hash);
    assert.equal(queuedTx.blockHash, null);
    assert.equal(queuedTx.blockNumber, null);
    assert.equal(queuedTx.transactionIndex, null);

    const t1 = await transfer(node, 1, 1);
    await send(node, t1.raw);
    assert.deepEqual(await status(node), { pending: '0x4', queued: '0x0' });
    assert.equal(await rpcResult(node.http, 'eth_getTransactionCount', [from, 'pending']), '0x4');
    const mine = await rpcResult<any>(node.http, 'txpool_contentFrom', [from]);
    assert.deepEqual(nonceKeys(mine.pending), ['0', '1', '2', '3']);
    assert.deepEqual(mine.queued, {});
  });

  it("txpool_content and txpool_inspect in geth's shapes", async () => {
    const create = await transfer(node, 2, 0, 7n * GWEI, { to: null, gas: 100_000n });
    const gapped = await transfer(node, 2, 5, 3n * GWEI);
    await send(node, create.raw);
    await send(node, gapped.raw);
    const content = await rpcResult<any>(node.http, 'txpool_content');
    const sender = getAddress(A[2]!.address);
    assert.ok(content.pending[sender], `checksummed key ${sender} in ${Object.keys(content.pending)}`);
    const tx = content.pending[sender]['0'];
    assert.equal(tx.hash, create.hash);
    assert.equal(tx.from, A[2]!.address.toLowerCase());
    assert.equal(tx.to, null);
    assert.equal(tx.nonce, '0x0');
    assert.equal(tx.gas, '0x186a0');
    assert.equal(tx.maxFeePerGas, `0x${(7n * GWEI).toString(16)}`);
    for (const f of ['blockHash', 'blockNumber', 'transactionIndex']) assert.equal(tx[f], null, f);
    assert.deepEqual(nonceKeys(content.queued[sender]), ['5']);
    assert.equal(content.queued[sender]['5'].hash, gapped.hash);
    // the first test's sender is there too, all pending
    assert.deepEqual(nonceKeys(content.pending[getAddress(A[1]!.address)]), ['0', '1', '2', '3']);

    const inspect = await rpcResult<any>(node.http, 'txpool_inspect');
    assert.equal(inspect.pending[sender]['0'], `contract creation: 0 wei + 100000 gas × ${7n * GWEI} wei`);
    assert.equal(inspect.queued[sender]['5'], `${getAddress(SINK)}: 1 wei + 21000 gas × ${3n * GWEI} wei`);
    const byHash = await rpcResult<any>(node.http, 'eth_getTransactionByHash', [create.hash]);
    assert.deepEqual(byHash, tx, 'eth_getTransactionByHash shows the same pending object');
  });

  it('replacement needs a 10% bump of both fee caps', async () => {
    const orig = await transfer(node, 3, 0, 10n * GWEI, { tip: 2n * GWEI });
    await send(node, orig.raw);
    const low = await transfer(node, 3, 0, 10_900_000_000n, { tip: 2_200_000_000n });
    assert.deepEqual(await sendError(node, low.raw), { code: -32000, message: 'replacement transaction underpriced' });
    const tipOnly = await transfer(node, 3, 0, 20n * GWEI, { tip: 2n * GWEI });
    assert.equal((await sendError(node, tipOnly.raw)).message, 'replacement transaction underpriced');
    assert.equal((await sendError(node, orig.raw)).message, 'already known');
    const before = await status(node);
    const ok = await transfer(node, 3, 0, 11n * GWEI, { tip: 2_200_000_000n });
    assert.equal(await send(node, ok.raw), ok.hash);
    assert.deepEqual(await status(node), before, 'a replacement does not change the counts');
    assert.equal(await rpcResult(node.http, 'eth_getTransactionByHash', [orig.hash]), null);
    assert.equal((await rpcResult<any>(node.http, 'eth_getTransactionByHash', [ok.hash])).hash, ok.hash);
  });

  it('the pool is back after kill -9 and a restart (journal)', async () => {
    const before = await rpcResult<any>(node.http, 'txpool_content');
    assert.ok(Object.keys(before.pending).length >= 3);
    assert.equal(await node.stop('SIGKILL'), null);
    node = await node.restart();
    assert.deepEqual(await rpcResult<any>(node.http, 'txpool_content'), before);
    assert.deepEqual(await status(node), { pending: '0x6', queued: '0x1' });
  });

  it('every tx acknowledged before a kill -9 in the middle of a burst is back after the restart', async () => {
    const signed = [];
    for (const i of [4, 5, 6, 7]) for (let n = 0; n < 15; n++) signed.push(await transfer(node, i, n));
    const acked: string[] = [];
    // Sends cut off by the kill fail (connection reset): that is expected, only the acknowledged ones count.
    const sends = signed.map((t) =>
      send(node, t.raw).then(
        (h) => void acked.push(h),
        () => undefined,
      ),
    );
    await waitFor('half the burst acknowledged', async () => (acked.length >= 20 ? true : undefined));
    await node.stop('SIGKILL');
    await Promise.allSettled(sends);
    const ackedNow = [...acked];
    assert.ok(ackedNow.length >= 20 && ackedNow.length <= signed.length);
    node = await node.restart();
    // Mined or superseded records are counted apart from the invalid ones (none here).
    assert.match(
      node.logs(),
      /txpool: \d+ tx\(s\) restored from the journal, \d+ already mined or replaced, 0 no longer valid/,
    );
    for (const h of ackedNow) {
      const tx = await rpcResult<any>(node.http, 'eth_getTransactionByHash', [h]);
      assert.ok(tx, `acknowledged ${h} lost in the restart (${ackedNow.length} acknowledged)`);
    }
  });
});

describe('txpool: bounds, eviction and expiry', { timeout: 90_000 }, () => {
  let node: KestrelNode;
  let base: string;
  before(async () => {
    const h = homeWith({
      'account-slots': 1,
      'global-slots': 3,
      'account-queue': 2,
      'global-queue': 3,
      lifetime: '3s',
    });
    base = h.base;
    node = await startNode({ home: h.home, args: PAUSED });
  });
  after(async () => {
    await node?.dispose();
    rmSync(base, { recursive: true, force: true });
  });
  afterEach(printLogsOnFailure(() => node));

  it('pending full: an account over its slots gives up its highest nonce, then the cheapest goes', async () => {
    const a1 = await transfer(node, 1, 1, 10n * GWEI);
    await send(node, (await transfer(node, 1, 0, 10n * GWEI)).raw);
    await send(node, a1.raw);
    const b0 = await transfer(node, 2, 0, 5n * GWEI);
    await send(node, b0.raw);
    assert.deepEqual(await status(node), { pending: '0x3', queued: '0x0' });
    const c0 = await transfer(node, 3, 0, 2n * GWEI);
    await send(node, c0.raw); // account 1 holds 2 > 1 slots: its nonce 1 is evicted
    assert.equal(await rpcResult(node.http, 'eth_getTransactionByHash', [a1.hash]), null);
    assert.deepEqual(await status(node), { pending: '0x3', queued: '0x0' });
    const cheap = await transfer(node, 4, 0, 2n * GWEI);
    assert.deepEqual(await sendError(node, cheap.raw), { code: -32000, message: 'transaction underpriced' });
    const rich = await transfer(node, 4, 0, 20n * GWEI);
    await send(node, rich.raw); // evicts the cheapest: c0 at 2 gwei
    assert.equal(await rpcResult(node.http, 'eth_getTransactionByHash', [c0.hash]), null);
    assert.ok(await rpcResult(node.http, 'eth_getTransactionByHash', [b0.hash]));
    assert.match(node.logs(), /txpool: evicting 0x[0-9a-f]{64}/);
  });

  it('queued bounds: per account refused, then expiry after the lifetime', async () => {
    const q1 = await transfer(node, 5, 3);
    await send(node, q1.raw);
    await send(node, (await transfer(node, 5, 4)).raw);
    assert.deepEqual(await sendError(node, (await transfer(node, 5, 5)).raw), {
      code: -32000,
      message: 'account limit exceeded',
    });
    assert.equal((await status(node)).queued, '0x2');
    await waitFor(
      'queued txs to expire',
      async () => ((await status(node)).queued === '0x0' ? true : undefined),
      20_000,
    );
    assert.equal(await rpcResult(node.http, 'eth_getTransactionByHash', [q1.hash]), null);
    assert.equal((await status(node)).pending, '0x3', 'pending txs never expire');
    assert.match(node.logs(), /queued tx\(s\) expired/);
  });
});

describe('txpool: interval mode (--block-time 2s)', { timeout: 60_000 }, () => {
  let node: KestrelNode;
  before(async () => {
    node = await startNode({ args: ['--block-time', '2s'] });
  });
  after(async () => node?.dispose());
  afterEach(printLogsOnFailure(() => node));

  it('a tx is pending until the next block, then mined and gone from the pool', async () => {
    // The interval may tick between the send and the look: then try again with the next nonce.
    let seen: { hash: string } | undefined;
    for (let n = 0; n < 4 && !seen; n++) {
      const base = BigInt((await rpcResult<any>(node.http, 'eth_getBlockByNumber', ['latest', false])).baseFeePerGas);
      const t = await transfer(node, 1, n, base * 2n + GWEI, { tip: GWEI });
      await send(node, t.raw);
      const content = await rpcResult<any>(node.http, 'txpool_content');
      const mined = await rpcResult(node.http, 'eth_getTransactionReceipt', [t.hash]);
      if (!mined && content.pending[getAddress(A[1]!.address)]?.[String(n)]?.hash === t.hash) seen = t;
      else await waitForReceipt(node.http, t.hash);
    }
    assert.ok(seen, 'a pending tx was observed before its block');
    const receipt = await waitForReceipt(node.http, seen.hash, 20_000);
    assert.equal(receipt.status, '0x1');
    await sleep(50);
    assert.deepEqual(await status(node), { pending: '0x0', queued: '0x0' });
    const tx = await rpcResult<any>(node.http, 'eth_getTransactionByHash', [seen.hash]);
    assert.equal(tx.blockHash, receipt.blockHash);
  });
});
