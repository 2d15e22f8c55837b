// Snapshot round trip in process: a node with 300 blocks (transfers and a contract) writes a snapshot; an empty
// node restores it chunk by chunk (small chunks, so there are many) and ends at the same head, state root and
// app hash, and executes the next block identically. Tampered chunks, a wrong app hash, a missing chunk and a
// non-empty app are refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import {
  ResponseApplySnapshotChunk_Result as Apply,
  ResponseOfferSnapshot_Result as Offer,
  type Snapshot,
} from 'cosmjs-types/tendermint/abci/types';
import { KestrelApp } from '../app/app.ts';
import { ChainQuery } from '../app/query.ts';
import { PrunedHistoryError } from '../errors/index.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { openSnapshotApp, TEST_COMMON } from '../../test/helpers/app.ts';
import { SnapshotStore } from './store.ts';
import { StatePruner } from '../app/state/pruner.ts';
import { pruningConfig } from '../config/pruning.ts';
import { readdirSync } from 'node:fs';
import { trieKey } from '../store/schema.ts';

const common = TEST_COMMON;
const [alice] = deriveAccounts(DEV_MNEMONIC, 1);
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function node() {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-snap-'));
  dirs.push(dir);
  const logs: string[] = [];
  const t = await openSnapshotApp(join(dir, 'db'), (l) => logs.push(l));
  return { dir, ...t, logs, query: new ChainQuery(t.app, t.chain, t.state) };
}

let nonce = 0n;
function transfer(i: number): Uint8Array {
  const to = new Uint8Array(20).fill(0x10 + (i % 50));
  return createFeeMarket1559Tx(
    {
      chainId: 9000n,
      nonce: nonce++,
      to,
      value: BigInt(i),
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 1n,
    },
    { common },
  )
    .sign(alice!.privateKey)
    .serialize();
}

async function seal(app: KestrelApp, raws: Uint8Array[], time: bigint) {
  await app.finalizeBlock({ txs: raws.map((r) => app.decode(r)), time });
  return app.commit();
}

async function restoreAll(
  target: Awaited<ReturnType<typeof node>>,
  snap: Snapshot,
  chunks: (i: number) => Uint8Array,
): Promise<Apply[]> {
  const results: Apply[] = [];
  for (let i = 0; i < snap.chunks; i++)
    results.push((await target.restore.apply({ index: i, chunk: chunks(i), sender: 'peer' })).result);
  return results;
}

describe('snapshots', { timeout: 300_000 }, () => {
  it('round trip: the restored node has the same head, state and app hash, and continues identically', async () => {
    const src = await node();
    for (let h = 1; h <= 300; h++) await seal(src.app, h % 3 === 0 ? [] : [transfer(h)], 1_800_000_000n + BigInt(h));
    // Small chunks, so the restore crosses many chunk boundaries.
    const store = new SnapshotStore(join(src.dir, 'snapshots'), src.kv, {
      interval: 100,
      keepRecent: 2,
      chunkBytes: 4096,
    });
    const snap = await store.create(src.app.head.number, src.app.head.header.stateRoot);
    assert.deepEqual(
      store.list().map((s) => s.height),
      [300n],
    );
    assert.ok(snap.chunks > 5, `${snap.chunks} chunks`);
    const appHash = src.bank.appHash(src.app.head);

    const empty = await node();
    assert.equal(empty.restore.offer({ snapshot: { ...snap, format: 2 }, appHash }).result, Offer.REJECT_FORMAT);
    assert.equal(
      empty.restore.offer({ snapshot: { ...snap, hash: new Uint8Array(32) }, appHash }).result,
      Offer.REJECT,
    );
    // A wrong trusted app hash: everything applies, then the final check refuses the snapshot.
    assert.equal(empty.restore.offer({ snapshot: snap, appHash: new Uint8Array(32) }).result, Offer.ACCEPT);
    const bad = await restoreAll(empty, snap, (i) => store.chunk(snap.height, 1, i));
    assert.equal(bad.at(-1), Apply.REJECT_SNAPSHOT);
    assert.equal(empty.app.head.number, 0n);
    // A tampered chunk is fetched again from another peer.
    assert.equal(empty.restore.offer({ snapshot: snap, appHash }).result, Offer.ACCEPT);
    const first = store.chunk(snap.height, 1, 0);
    const tampered = Uint8Array.from(first);
    tampered[tampered.length - 1]! ^= 1;
    const retry = await empty.restore.apply({ index: 0, chunk: tampered, sender: 'liar' });
    assert.equal(retry.result, Apply.RETRY);
    assert.deepEqual(retry.rejectSenders, ['liar']);
    const ok = await restoreAll(empty, snap, (i) => store.chunk(snap.height, 1, i));
    assert.ok(
      ok.every((r) => r === Apply.ACCEPT),
      JSON.stringify(ok),
    );
    assert.equal(empty.app.head.number, 300n);
    assert.deepEqual(empty.app.head.hash, src.app.head.hash);
    assert.deepEqual(empty.bank.appHash(empty.app.head), appHash);
    // The next block (a transfer and BLOCKHASH-independent fields) is sealed identically on both.
    const next = transfer(301);
    const [a, b] = [await seal(src.app, [next], 1_800_000_301n), await seal(empty.app, [next], 1_800_000_301n)];
    assert.deepEqual(b.block.hash, a.block.hash);
    // State before the snapshot is gone on the restored node, and says so; blocks of the last 256 are there.
    await assert.rejects(
      empty.app.query('/evm/account', alice!.address, 250n),
      /^Error: missing trie node|missing trie node/,
    );
    assert.ok((await src.app.query('/evm/account', alice!.address, 250n)).length > 0);
    // Blocks: the 256 up to the snapshot came with it; older ones are pruned history (geth's EIP-4444 error).
    assert.ok(empty.query.blockByNumber(45n));
    assert.throws(() => empty.query.blockByNumber(44n), PrunedHistoryError);
    assert.ok(src.query.blockByNumber(44n));
    // An app that already has blocks refuses offers.
    assert.equal(empty.restore.offer({ snapshot: snap, appHash }).result, Offer.ABORT);
    for (const n of [src, empty]) await n.kv.close();
  });

  it('a snapshot is written in slices while blocks go on, pruning keeps its root until it ends, stop() abandons one', async () => {
    const src = await node();
    nonce = 0n;
    const roots: Uint8Array[] = [];
    for (let h = 1; h <= 45; h++)
      roots[h] = (await seal(src.app, [transfer(h)], 1_900_000_000n + BigInt(h))).block.header.stateRoot;
    const logs: string[] = [];
    const dir = join(src.dir, 'snapshots');
    const store = new SnapshotStore(
      dir,
      src.kv,
      { interval: 40, keepRecent: 2, chunkBytes: 4096, sliceReads: 1 },
      (l) => logs.push(l),
    );
    const pruner = new StatePruner(
      src.kv,
      pruningConfig('custom', 2, 1),
      (n) => src.chain.blockByNumber(n)?.header.stateRoot,
      () => [],
      () => store.pinnedRoots(),
    );
    store.afterCommit(40n, roots[40]!);
    // Under way, not listed yet, its root pinned.
    assert.deepEqual(store.pinnedRoots(), [roots[40]]);
    assert.deepEqual(store.list(), []);
    // A sweep that keeps only heights 44 and 45 runs meanwhile: the snapshot's root survives it, 41's does not.
    const swept = await pruner.prune(45n);
    assert.ok(
      swept.deleted > 0,
      JSON.stringify(swept, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    );
    await store.whenIdle();
    assert.deepEqual(store.pinnedRoots(), []);
    assert.deepEqual(
      store.list().map((s) => s.height),
      [40n],
      logs.join('\n'),
    );
    assert.equal(src.kv.get(trieKey(roots[41]!)), undefined, "41's root node was swept");
    assert.notEqual(src.kv.get(trieKey(roots[40]!)), undefined);
    const snap = store.list()[0]!;
    const empty = await node();
    assert.equal(empty.restore.offer({ snapshot: snap, appHash: src.bank.appHashOf(roots[40]!) }).result, Offer.ACCEPT);
    const applied = await restoreAll(empty, snap, (i) => store.chunk(snap.height, 1, i));
    assert.ok(
      applied.every((r) => r === Apply.ACCEPT),
      JSON.stringify(applied),
    );
    assert.equal(empty.app.head.number, 40n);
    // One at a time: a second interval height while one is written is skipped. stop() abandons the one under way.
    store.afterCommit(40n, roots[40]!);
    store.afterCommit(80n, roots[45]!);
    assert.ok(logs.some((l) => /skipped height 80: the snapshot of height 40 is still being written/.test(l)));
    await store.stop();
    assert.ok(logs.some((l) => /snapshot of height 40 abandoned: the node is stopping/.test(l)));
    assert.deepEqual(store.pinnedRoots(), []);
    assert.deepEqual(readdirSync(dir).sort(), ['40']);
    store.afterCommit(40n, roots[40]!);
    assert.deepEqual(store.pinnedRoots(), [], 'a stopped store starts no snapshot');
    for (const n of [src, empty]) await n.kv.close();
  });
});
