import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PREALLOCATE_BYTES, readJournal, TxJournal, type JournalEntry } from './journal.ts';

const dir = mkdtempSync(join(tmpdir(), 'kestrel-journal-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const entry = (i: number, len = 100): JournalEntry => ({
  raw: new Uint8Array(len).fill(i & 0xff),
  addedAt: 1_700_000_000_000 + i,
});

describe('TxJournal', () => {
  test('a missing file reads as empty', () => {
    assert.deepEqual(readJournal(join(dir, 'none')), { entries: [], tornBytes: 0, empty: false });
  });

  test('an empty journal is reopened as it is and takes appends', async () => {
    const path = join(dir, 'empty.journal');
    const opts = { fsync: true, snapshot: () => [], liveCount: () => 0 };
    await (await TxJournal.create(path, [], opts)).close();
    const read = readJournal(path);
    assert.deepEqual(read, { entries: [], tornBytes: 0, empty: true });
    const before = statSync(path);
    const j = TxJournal.openEmpty(path, opts);
    assert.equal(statSync(path).ino, before.ino, 'not rewritten');
    await j.append(entry(1));
    await j.append(entry(2));
    await j.close();
    assert.deepEqual(readJournal(path), { entries: [entry(1), entry(2)], tornBytes: 0, empty: false });
  });

  test('create, concurrent appends (group commit), reopen', async () => {
    const path = join(dir, 'a.journal');
    let live: JournalEntry[] = [entry(1)];
    const j = await TxJournal.create(path, live, { fsync: true, snapshot: () => live, liveCount: () => live.length });
    const more = Array.from({ length: 50 }, (_, i) => entry(i + 2, 10 + i));
    await Promise.all(more.map((e) => j.append(e)));
    assert.equal(j.recordCount, 51);
    await j.close();
    const got = readJournal(path);
    assert.equal(got.tornBytes, 0);
    assert.deepEqual(got.entries, [entry(1), ...more]);
    await assert.rejects(j.append(entry(99)), /closed/);
    live = [];
  });

  test('a torn or corrupt tail is ignored; earlier records survive', async () => {
    const path = join(dir, 'b.journal');
    const live: JournalEntry[] = [];
    const j = await TxJournal.create(path, [entry(1), entry(2)], {
      fsync: false,
      snapshot: () => live,
      liveCount: () => 0,
    });
    await j.close();
    const whole = 8 + 2 * (8 + 8 + 100); // magic + two records; zeros follow
    assert.equal(statSync(path).size, whole + PREALLOCATE_BYTES);
    assert.deepEqual(
      readJournal(path),
      { entries: [entry(1), entry(2)], tornBytes: 0, empty: false },
      'the zero padding is not a torn tail',
    );
    const buf = readFileSync(path);
    buf.set([0, 0, 0, 200, 1, 2, 3], whole); // a record header whose body never made it, over the zeros
    writeFileSync(path, buf);
    let got = readJournal(path);
    assert.equal(got.entries.length, 2);
    assert.equal(got.tornBytes, 7);
    appendFileSync(path, Buffer.from([0, 0, 0, 200, 1, 2, 3])); // the same past the padding (an old, unpadded file)
    assert.equal(readJournal(path).entries.length, 2);
    // flip one byte of the second record's payload: its checksum fails, the first one stays
    buf.writeUInt8(buf.readUInt8(whole - 1) ^ 0xff, whole - 1);
    writeFileSync(path, buf);
    got = readJournal(path);
    assert.deepEqual(got.entries, [entry(1)]);
    writeFileSync(path, 'not a journal');
    assert.deepEqual(readJournal(path), { entries: [], tornBytes: 13, empty: false });
  });

  test('appends past the preallocated zeros grow the file; every record reads back', async () => {
    const path = join(dir, 'g.journal');
    const live: JournalEntry[] = [];
    const j = await TxJournal.create(path, [entry(1)], {
      fsync: true,
      snapshot: () => live,
      liveCount: () => 1_000_000,
    });
    const big = Array.from({ length: 30 }, (_, i) => entry(i + 2, 100_000)); // ~3 MiB: two growth steps
    for (const e of big.slice(0, 10)) await j.append(e);
    await Promise.all(big.slice(10).map((e) => j.append(e)));
    await j.close();
    assert.ok(statSync(path).size >= 3 * PREALLOCATE_BYTES);
    assert.deepEqual(readJournal(path), { entries: [entry(1), ...big], tornBytes: 0, empty: false });
  });

  test('compaction rewrites the file from the pool content, appends continue in the new file', async () => {
    const path = join(dir, 'c.journal');
    let live = [entry(1), entry(2), entry(3)];
    const j = await TxJournal.create(path, live, { fsync: false, snapshot: () => live, liveCount: () => live.length });
    live = [entry(3)];
    await j.compact();
    await j.append(entry(4));
    assert.equal(j.recordCount, 2);
    await j.close();
    assert.deepEqual(readJournal(path).entries, [entry(3), entry(4)]);
  });

  test('grows past 4x the pool (and 1024 records): compacts by itself', async () => {
    const path = join(dir, 'd.journal');
    const live = [entry(7)];
    const j = await TxJournal.create(path, [], { fsync: false, snapshot: () => live, liveCount: () => live.length });
    for (let i = 0; i < 1100; i++) await j.append(entry(i, 8));
    assert.ok(j.recordCount < 100, `compacted (records now ${j.recordCount})`);
    await j.close();
    assert.deepEqual(readJournal(path).entries[0], entry(7));
  });
});

describe('TxJournal group commit with fsync', () => {
  test('concurrent appends past the compaction threshold all resolve; the file keeps the pool content', async () => {
    const path = join(dir, 'e.journal');
    const live = [entry(7), entry(8)];
    const j = await TxJournal.create(path, [], { fsync: true, snapshot: () => live, liveCount: () => live.length });
    const appends = Array.from({ length: 1100 }, (_, i) => j.append(entry(1000 + i, 8)));
    await Promise.all(appends);
    assert.ok(j.recordCount < 1100, `compacted (records now ${j.recordCount})`);
    await j.append(entry(9));
    await j.close();
    const got = readJournal(path);
    assert.equal(got.tornBytes, 0);
    assert.deepEqual(got.entries.slice(0, 2), live, 'the snapshot heads the rewritten file');
    assert.deepEqual(got.entries[got.entries.length - 1], entry(9), 'appends continue in the new file');
  });

  test('every append is in the file once its promise resolves (records from one tick share a sync)', async () => {
    const path = join(dir, 'f.journal');
    const live: JournalEntry[] = [];
    const j = await TxJournal.create(path, [], { fsync: true, snapshot: () => live, liveCount: () => 1_000_000 });
    for (let round = 0; round < 5; round++) {
      const batch = Array.from({ length: round + 1 }, (_, i) => entry(round * 10 + i, 20 + i));
      await Promise.all(batch.map((e) => j.append(e)));
      // Read while the journal is still open: what resolved must already be there, whole.
      const got = readJournal(path);
      assert.equal(got.tornBytes, 0);
      assert.deepEqual(got.entries.slice(-batch.length), batch);
    }
    assert.equal(j.recordCount, 15);
    await j.close();
  });
});
