// The pruner's mark phase walks the whole live state; it must let the event loop turn as it goes, so the node answers
// requests during a sweep of a large state instead of going silent for its length.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KvStore } from '../../store/kv.ts';
import { pruningConfig } from '../../config/pruning.ts';
import { StatePruner } from './pruner.ts';
import { DEV_GENESIS, openTestApp } from '../../../test/helpers/app.ts';

const ACCOUNTS = 5_000;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('state pruning, mark phase', () => {
  it(`lets the event loop turn while it walks a state of ${ACCOUNTS} accounts`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kestrel-prune-mark-'));
    dirs.push(dir);
    const alloc = Array.from({ length: ACCOUNTS }, (_, i) => {
      const address = new Uint8Array(20);
      new DataView(address.buffer).setUint32(16, i + 1);
      return { address, balance: 1n };
    });
    const genesis = { ...DEV_GENESIS, accounts: [], alloc: [...DEV_GENESIS.alloc, ...alloc] };
    const { kv, chain, app } = await openTestApp(join(dir, 'db'), () => ({ genesis }));
    try {
      let reads = 0;
      // The pruner's view of the store, counting its point reads (the mark phase's).
      const counting = Object.create(kv) as KvStore;
      counting.get = (key: Uint8Array) => {
        reads++;
        return kv.get(key);
      };
      const pruner = new StatePruner(
        counting,
        pruningConfig('custom', 2, 1),
        (n) => chain.blockByNumber(n)?.header.stateRoot,
      );
      let readsAtFirstTurn: number | undefined;
      setImmediate(() => (readsAtFirstTurn = reads));
      const stats = await pruner.prune(app.head.number);
      assert.ok(stats.kept > ACCOUNTS, `kept ${stats.kept}`);
      assert.ok(
        readsAtFirstTurn !== undefined && readsAtFirstTurn < stats.kept / 2,
        `first turn after ${readsAtFirstTurn} of ${reads} reads`,
      );
    } finally {
      await kv.close();
    }
  });
});
