import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createBlockHeader } from '@ethereumjs/block';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { BlockRecord, ReceiptRecord } from './records.ts';
import { createChainCommon } from '../app/evm/common.ts';
import { RLP } from '@ethereumjs/rlp';
import { Bloom } from '@ethereumjs/vm';
import { bytesToHex, u64be } from '../primitives/hex.ts';
import { blockSize, ChainStore } from './chainStore.ts';
import { KvStore } from './kv.ts';
import { blockKey, blockLogsKey, canonKey, hashKey, metaKey, receiptsKey, trieKey, txKey } from './schema.ts';
import { BufferedTrieDb, NodeCache } from './trieDb.ts';
import { txOf } from '../app/evm/execTx.testing.ts';

const b = (...xs: number[]) => Uint8Array.from(xs);
/** Byte equality whether LevelDB hands back a Buffer or a Uint8Array. */
const same = (actual: unknown, expected: Uint8Array, msg?: string) =>
  assert.deepEqual(actual instanceof Uint8Array ? [...actual] : actual, [...expected], msg);

describe('store', () => {
  let dir: string;
  let kv: KvStore;
  const path = () => join(dir, 'db');
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-store-'));
    kv = await KvStore.open(path());
  });
  after(async () => {
    await kv.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  test('key schema: one distinct prefix per record kind, numbers big-endian', () => {
    const h = new Uint8Array(32).fill(7);
    const keys = [
      trieKey(h),
      canonKey(1n),
      hashKey(h),
      blockKey(1n),
      receiptsKey(1n),
      blockLogsKey(1n),
      txKey(h),
      metaKey('head'),
    ];
    assert.equal(new Set(keys.map((k) => k[0])).size, keys.length);
    assert.deepEqual(blockKey(258n).subarray(1), u64be(258n));
    assert.ok(Buffer.compare(blockKey(255n), blockKey(256n)) < 0, 'block keys sort by height');
  });

  test('KvStore: atomic batch, sync reads, deletes, and durability across reopen', async () => {
    assert.equal(kv.get(b(1)), undefined);
    await kv.write([
      { type: 'put', key: b(1), value: b(10) },
      { type: 'put', key: b(2), value: b(20) },
      { type: 'put', key: b(3), value: new Uint8Array(0) },
    ]);
    same(kv.get(b(1)), b(10));
    assert.equal(kv.get(b(3))?.length, 0, 'an empty value is not a missing one');
    await kv.write([
      { type: 'del', key: b(2) },
      { type: 'put', key: b(1), value: b(11) },
    ]);
    await kv.write([]);
    assert.equal(kv.get(b(2)), undefined);
    await kv.close();
    kv = await KvStore.open(path());
    same(kv.get(b(1)), b(11));
    assert.equal(kv.get(b(2)), undefined);
  });

  test('NodeCache: nodes read once stay on probation (1/8 of the bound), a second read keeps them', () => {
    const bound = 1 << 20;
    const cache = new NodeCache(bound);
    const node = (i: number) => new Uint8Array(500).fill(i & 0xff);
    // A scan of 10,000 nodes read once (~9 MB with overheads): only the probation segment fills.
    for (let i = 0; i < 10_000; i++) cache.set(`scan${i}`, node(i));
    assert.ok(cache.size <= bound / 8 + 1, `one-off reads hold ${cache.size} bytes`);
    assert.equal(cache.size, cache.probationSize);
    assert.equal(cache.get('scan0'), undefined, 'the scan evicted its own oldest nodes');
    // Nodes read twice move to the main segment and survive a later scan.
    for (let i = 0; i < 100; i++) cache.set(`hot${i}`, node(i));
    for (let i = 0; i < 100; i++) assert.ok(cache.get(`hot${i}`) !== undefined);
    for (let i = 0; i < 10_000; i++) cache.set(`scan2-${i}`, node(i));
    for (let i = 0; i < 100; i++) assert.deepEqual(cache.get(`hot${i}`), node(i), `hot node ${i} kept`);
    assert.ok(cache.size > cache.probationSize, 'the main segment holds the promoted nodes');
    // Promoting more than the bound evicts from the main segment: the whole stays within the bound.
    for (let i = 0; i < 10_000; i++) {
      cache.set(`warm${i}`, node(i));
      cache.get(`warm${i}`);
    }
    assert.ok(cache.size <= bound, `holds ${cache.size} bytes, over its ${bound}`);
    assert.ok(cache.size > bound / 2, 'repeated reads fill the main segment');
  });

  test('BufferedTrieDb: writes stay in memory until drained, discard drops them', async () => {
    const cache = new NodeCache(1 << 20);
    const db = new BufferedTrieDb(kv, cache);
    await db.put('aa', b(1));
    await db.batch([
      { type: 'put', key: 'bb', value: b(2) },
      { type: 'del', key: 'aa' },
    ]);
    same(await db.get('aa'), b(1), 'nodes are content-addressed: del is a no-op');
    assert.equal(kv.get(trieKey(b(0xaa))), undefined, 'nothing reached LevelDB');
    const ops = db.drain();
    assert.equal(ops.length, 2);
    await kv.write(ops);
    same(kv.get(trieKey(b(0xbb))), b(2));
    const fresh = new BufferedTrieDb(kv, new NodeCache(1 << 20));
    same(await fresh.get(b(0xbb)), b(2), 'another buffer reads the persisted node');
    await db.put('cc', b(3));
    db.discard();
    assert.equal(await db.get('cc'), undefined);
    assert.equal(db.drain().length, 0);
    assert.equal(db.shallowCopy(), db);
  });

  test('blockLogs: the stored logs record, the recent-block caches and the fallback for older databases agree', async () => {
    const common = createChainCommon(9000n);
    const key = new Uint8Array(32).fill(1);
    const txs = [0n, 1n, 2n].map((nonce) =>
      createFeeMarket1559Tx(
        { nonce, to: new Uint8Array(20).fill(2), gasLimit: 50_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n },
        { common },
      ).sign(key),
    );
    const header = createBlockHeader(
      { number: 7n, timestamp: 1_700_000_123n, gasLimit: 30_000_000n, baseFeePerGas: 7n },
      { common, setHardfork: false },
    );
    const block: BlockRecord = {
      header,
      hash: header.hash(),
      number: 7n,
      txs: txs.map(txOf),
      txHashes: txs.map((t) => t.hash()),
      senders: txs.map((t) => t.getSenderAddress().bytes),
      size: blockSize(header.raw(), txs.map(txOf)),
    };
    const log = (a: number, topics: number[], data: number[]) => ({
      address: new Uint8Array(20).fill(a),
      topics: topics.map((t) => new Uint8Array(32).fill(t)),
      data: Uint8Array.from(data),
    });
    // ethereumjs' bloom of the logs (the store leaves it out of the record and computes it again when read).
    const bloomOf = (logs: ReturnType<typeof log>[]): Uint8Array => {
      const b = new Bloom();
      for (const l of logs) {
        b.add(l.address);
        for (const t of l.topics) b.add(t);
      }
      return b.bitvector;
    };
    const receipt = (logs: ReturnType<typeof log>[]): ReceiptRecord => ({
      type: 2,
      status: 1,
      cumulativeGasUsed: 21_000n,
      gasUsed: 21_000n,
      logs,
      bloom: bloomOf(logs),
      from: block.senders[0]!,
      effectiveGasPrice: 8n,
    });
    // The middle tx emits nothing: the block-wide log index must still count across it.
    const receipts: ReceiptRecord[] = [
      receipt([log(3, [4, 5], [6]), log(3, [], [])]),
      { ...receipt([]), contractAddress: new Uint8Array(20).fill(5), status: 0, type: 0 },
      { ...receipt([log(9, [1, 2, 3, 4], [7, 7])]), to: new Uint8Array(20).fill(6), effectiveGasPrice: 10n ** 20n },
    ];
    const norm = (v: unknown): unknown => {
      if (v instanceof Uint8Array) return bytesToHex(v);
      if (typeof v === 'bigint') return `${v}`;
      if (Array.isArray(v)) return v.map(norm);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
      return v;
    };
    const ops = new ChainStore(kv, common).blockOps(block, receipts);
    // The store encodes with primitives/rlp: each record must be the bytes @ethereumjs/rlp gives for the same items.
    const records = [blockKey(7n), receiptsKey(7n), blockLogsKey(7n)].map((k) => bytesToHex(k));
    const recordOps = ops.filter((o) => o.type === 'put' && records.includes(bytesToHex(o.key)));
    assert.equal(recordOps.length, 3);
    for (const o of recordOps) {
      if (o.type === 'put') assert.deepEqual(bytesToHex(RLP.encode(RLP.decode(o.value))), bytesToHex(o.value));
    }
    await kv.write(ops);
    assert.deepEqual(norm(new ChainStore(kv, common).receipts(7n)), norm(receipts), 'receipts read back, blooms too');
    const stored = RLP.decode(kv.get(receiptsKey(7n))!) as Uint8Array[][];
    assert.ok(
      stored.every((f) => f[5]!.length === 0),
      'no bloom in the record',
    );
    // A record written before: its bloom is taken as stored.
    const older = stored.map((f) => f.map((x, i) => (i === 5 ? new Uint8Array(256).fill(0xa5) : x)));
    await kv.write([{ type: 'put', key: receiptsKey(7n), value: RLP.encode(older) }]);
    assert.ok(new ChainStore(kv, common).receipts(7n)!.every((r) => r.bloom.every((x) => x === 0xa5)));
    const expected = {
      hash: bytesToHex(block.hash),
      timestamp: '1700000123',
      txs: [
        { txIndex: 0, txHash: bytesToHex(block.txHashes[0]!), logs: norm(receipts[0]!.logs) },
        { txIndex: 2, txHash: bytesToHex(block.txHashes[2]!), logs: norm(receipts[2]!.logs) },
      ],
    };
    assert.deepEqual(norm(new ChainStore(kv, common).blockLogs(7n)), expected, 'from the logs record');
    const cached = new ChainStore(kv, common);
    cached.remember(block, receipts);
    assert.deepEqual(norm(cached.blockLogs(7n)), expected, 'from the caches');
    await kv.write([{ type: 'del', key: blockLogsKey(7n) }]);
    assert.deepEqual(
      norm(new ChainStore(kv, common).blockLogs(7n)),
      expected,
      'from receipts and the block (no logs record)',
    );
    assert.equal(new ChainStore(kv, common).blockLogs(8n), undefined);
  });

  test('NodeCache evicts the least recently used of each segment once its byte budget is spent', () => {
    const v = (n: number) => new Uint8Array(100).fill(n);
    const probe = new NodeCache(1 << 20);
    probe.set('a', v(1));
    const entry = probe.size; // key, value and the per-entry overhead
    assert.ok(entry > 101, 'the estimate counts more than the raw bytes');
    // 16 entries' worth: probation holds 2, the main segment 14.
    const c = new NodeCache(16 * entry);
    c.set('a', v(1));
    c.set('b', v(2));
    assert.equal(c.size, 2 * entry);
    c.get('a'); // promoted: probation keeps b, the main segment a
    c.set('c', v(3));
    c.set('d', v(4)); // probation is full (b, c): b, the least recently used, goes
    same(c.get('a'), v(1));
    assert.equal(c.get('b'), undefined);
    same(c.get('d'), v(4));
    assert.equal(c.size, 3 * entry, 'a, d in the main segment, c on probation');
    c.set('d', v(5));
    assert.equal(c.size, 3 * entry, 'replacing an entry does not count it twice');
    same(c.get('d'), v(5));
    const slab = new Uint8Array(8192);
    c.set('e', slab.subarray(0, 100));
    assert.equal(c.get('e')!.buffer.byteLength, 100, 'a view into a larger buffer is copied, not pinned');
  });
});
