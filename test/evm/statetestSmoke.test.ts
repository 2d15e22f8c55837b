// A quick subset of the state tests that always runs: the execution-spec-tests sets of the older forks' features,
// of Osaka's Prague pins and of the Osaka EIPs filled for Osaka (2,416 cases, about 10 s), in-process on Kestrel's
// engine. The full suite is statetests.test.ts (behind KESTREL_EVM_STATETESTS=all).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { kestrelEngine } from '../../src/evm/statetest/kestrelEngine.ts';
import { runStateTests } from '../../src/evm/statetest/runner.ts';
import { FIXTURE_DIR } from './statetestPool.ts';

for (const set of ['eest-older-for-prague', 'eest-osaka-for-prague', 'eest-osaka']) {
  test(`state tests: every case of ${set} passes on Kestrel's engine`, async () => {
    let passed = 0;
    const failures: string[] = [];
    for await (const r of runStateTests([path.join(FIXTURE_DIR, `${set}.json.br`)], { engine: kestrelEngine })) {
      if (r.pass) passed++;
      else failures.push(`${r.name}: ${r.error}`);
    }
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failures`);
    assert.ok(passed > 100, `only ${passed} cases ran`);
  });
}
