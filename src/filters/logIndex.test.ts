// The log index over a real LevelDB: posting sets switch from sparse to dense correctly, candidates are a superset
// of the matching blocks (and exactly them for single-item groups), catch-up equals per-block indexing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReceiptRecord } from '../store/records.ts';
import { KvStore } from '../store/kv.ts';
import { matchesLog, type LogMatch } from './criteria.ts';
import { LogIndex } from './logIndex.ts';
import { BITMAP_BYTES, BUCKET, appendOffset, orInto, setBits } from './postings.ts';

const addr = (b: number) => new Uint8Array(20).fill(b);
const topic = (b: number) => new Uint8Array(32).fill(b);

/** A deterministic chain: block n has logs from address n%7 with topics [n%5, n%3] when n%4 != 0. */
function receiptsOf(n: bigint): ReceiptRecord[] {
  if (n % 4n === 0n) return [];
  const i = Number(n);
  const log = { address: addr(i % 7), topics: [topic(i % 5), topic(100 + (i % 3))], data: new Uint8Array(0) };
  return [
    {
      type: 2,
      status: 1,
      cumulativeGasUsed: 0n,
      gasUsed: 0n,
      logs: [log],
      bloom: new Uint8Array(256),
      from: addr(0xaa),
      effectiveGasPrice: 0n,
    },
  ];
}

describe('postings', () => {
  it('appends ascending offsets, goes dense past 256 entries and stays exact', () => {
    let enc: Uint8Array | undefined;
    const offsets = Array.from({ length: 600 }, (_, i) => i * 6);
    for (const o of offsets) enc = appendOffset(appendOffset(enc, o), o);
    assert.equal(enc!.length, 1 + BITMAP_BYTES);
    const bm = new Uint8Array(BITMAP_BYTES);
    orInto(bm, enc!);
    assert.deepEqual([...setBits(bm, 0, BUCKET - 1)], offsets);
    assert.deepEqual([...setBits(bm, 7, 30)], [12, 18, 24, 30]);
    const sparse = appendOffset(appendOffset(undefined, 3), 4000);
    assert.equal(sparse.length, 5);
  });
});

describe('LogIndex', () => {
  let dir: string;
  let kv: KvStore;
  const HEAD = 10_000n;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-logindex-'));
    kv = await KvStore.open(join(dir, 'db'));
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('catch-up and per-block batches build the same index; candidates cover every match', async () => {
    const a = new LogIndex(kv);
    assert.equal(await a.catchUp(HEAD / 2n, receiptsOf), Number(HEAD / 2n) + 1);
    for (let n = HEAD / 2n + 1n; n <= HEAD; n++) await kv.write(a.blockOps(n, receiptsOf(n)));
    assert.equal(a.head(), HEAD);
    assert.equal(await a.catchUp(HEAD, receiptsOf), 0);
    const cases: LogMatch[] = [
      { addresses: [addr(3)], topics: [] },
      { addresses: [addr(3), addr(5)], topics: [[topic(2)]] },
      { addresses: [], topics: [null, [topic(101)]] },
      { addresses: [], topics: [] },
      { addresses: [addr(9)], topics: [] },
      { addresses: [], topics: [[topic(1), topic(4)], [topic(102)]] },
    ];
    for (const m of cases) {
      for (const [from, to] of [
        [0n, HEAD],
        [4090n, 8200n],
        [17n, 17n],
      ] as const) {
        const got = [...a.candidates(m, from, to)];
        const want: bigint[] = [];
        for (let n = from; n <= to; n++)
          if (receiptsOf(n).some((r) => r.logs.some((l) => matchesLog(m, l)))) want.push(n);
        assert.deepEqual(got, want, `case ${cases.indexOf(m)} ${from}..${to}`);
      }
    }
  });
});
