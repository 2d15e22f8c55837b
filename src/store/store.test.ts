import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { u64be } from '../primitives/hex.ts';
import { KvStore } from './kv.ts';
import { blockKey, canonKey, hashKey, metaKey, receiptsKey, trieKey, txKey } from './schema.ts';
import { BufferedTrieDb, NodeCache } from './trieDb.ts';

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
    const keys = [trieKey(h), canonKey(1n), hashKey(h), blockKey(1n), receiptsKey(1n), txKey(h), metaKey('head')];
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
    await kv.write([{ type: 'del', key: b(2) }, { type: 'put', key: b(1), value: b(11) }]);
    await kv.write([]);
    assert.equal(kv.get(b(2)), undefined);
    await kv.close();
    kv = await KvStore.open(path());
    same(kv.get(b(1)), b(11));
    assert.equal(kv.get(b(2)), undefined);
  });

  test('BufferedTrieDb: writes stay in memory until drained, discard drops them', async () => {
    const cache = new NodeCache(100);
    const db = new BufferedTrieDb(kv, cache);
    await db.put('aa', b(1));
    await db.batch([{ type: 'put', key: 'bb', value: b(2) }, { type: 'del', key: 'aa' }]);
    same(await db.get('aa'), b(1), 'nodes are content-addressed: del is a no-op');
    assert.equal(kv.get(trieKey(b(0xaa))), undefined, 'nothing reached LevelDB');
    const ops = db.drain();
    assert.equal(ops.length, 2);
    await kv.write(ops);
    same(kv.get(trieKey(b(0xbb))), b(2));
    const fresh = new BufferedTrieDb(kv, new NodeCache(10));
    same(await fresh.get(b(0xbb)), b(2), 'another buffer reads the persisted node');
    await db.put('cc', b(3));
    db.discard();
    assert.equal(await db.get('cc'), undefined);
    assert.equal(db.drain().length, 0);
    assert.equal(db.shallowCopy(), db);
  });

  test('NodeCache evicts the least recently used', () => {
    const c = new NodeCache(2);
    c.set('a', b(1));
    c.set('b', b(2));
    c.get('a');
    c.set('c', b(3));
    same(c.get('a'), b(1));
    assert.equal(c.get('b'), undefined);
    same(c.get('c'), b(3));
  });
});
