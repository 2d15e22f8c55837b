import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KvStore } from '../../store/kv.ts';
import type { CommittedBlock } from '../app.ts';
import type { HeadChange } from '../state/headCache.ts';
import { TouchedState } from './touched.ts';

const address = (i: number) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  return a;
};
const slot = (i: number) => {
  const s = new Uint8Array(32);
  s[31] = i;
  return s;
};
/** A committed block that changed these accounts and slots (only what TouchedState reads is filled in). */
function block(changes: Array<[number, number[]]>): CommittedBlock {
  const stateChanges = changes.map(
    ([a, slots]) => ({ address: address(a), storage: new Map(slots.map((s) => [slot(s), slot(1)])) }) as unknown,
  ) as HeadChange[];
  return { stateChanges } as unknown as CommittedBlock;
}
const hex = (i: number, width: number) => i.toString(16).padStart(width, '0');

describe('TouchedState', () => {
  let dir: string;
  let kv: KvStore;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-touched-'));
    kv = await KvStore.open(dir);
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records each account and slot once, across blocks and restarts, and lists them in address order', async () => {
    const first = new TouchedState(kv);
    const ops1 = first.blockOps(
      block([
        [7, [2, 1]],
        [3, []],
      ]),
    );
    assert.equal(ops1.length, 4);
    // Again in the same block's batch and in a later block: nothing new.
    assert.equal(
      first.blockOps(
        block([
          [7, [1]],
          [3, []],
        ]),
      ).length,
      0,
    );
    await kv.write(ops1);
    // A restart knows what is on disk without reading the record at start.
    const second = new TouchedState(kv);
    assert.equal(
      second.blockOps(
        block([
          [3, []],
          [7, [2]],
        ]),
      ).length,
      0,
    );
    const ops2 = second.blockOps(
      block([
        [7, [3]],
        [5, []],
      ]),
    );
    assert.equal(ops2.length, 2);
    await kv.write(ops2);
    const listed = [];
    for await (const e of second.entries()) listed.push(e);
    assert.deepEqual(listed, [
      [hex(3, 40), []],
      [hex(5, 40), []],
      [hex(7, 40), [hex(1, 64), hex(2, 64), hex(3, 64)]],
    ]);
  });

  it('asks the store again when its memo of recorded keys starts over, so no key is written twice', async () => {
    const many: Array<[number, number[]]> = Array.from({ length: 70_000 }, (_, i) => [1_000 + i, []]);
    const t = new TouchedState(kv);
    const ops = t.blockOps(block(many));
    assert.equal(ops.length, many.length);
    await kv.write(ops);
    // The memo holds fewer keys than that: the older ones are checked against the store.
    assert.equal(t.blockOps(block(many)).length, 0);
  });
});
