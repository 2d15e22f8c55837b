// Every Ethereum state test in test/fixtures/ethereum-tests/ on Kestrel's engine, in two worker threads. A failure
// fails the test unless test/fixtures/ethereum-tests/exclusions.json names the case with a reason; an exclusion
// that no longer fails fails too (it must be removed). Runs when KESTREL_EVM_STATETESTS=all: `npm test` (and so CI)
// runs it last and alone (`npm run test:statetests`), so its two workers have both cores: about 13 CPU-minutes for
// 30,029 cases (24,421 Cancun/Prague, 5,608 Osaka; the Osaka ones take about 20 s). The cases run and skipped per
// set must be EXPECTED_CASES. The smoke subset in statetestSmoke.test.ts runs with the rest of the suite.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EXPECTED_CASES, failureCategories, FIXTURE_DIR, runPool } from './statetestPool.ts';

/** One tolerated failure. */
export interface Exclusion {
  name: string;
  reason: string;
}

/** The exclusion list, checked for shape (every entry names a case and gives a reason; no duplicates). */
export function loadExclusions(): Map<string, string> {
  const list = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'exclusions.json'), 'utf8')) as Exclusion[];
  const map = new Map<string, string>();
  for (const e of list) {
    if (typeof e.name !== 'string' || e.name === '') throw new Error(`exclusion without a name: ${JSON.stringify(e)}`);
    if (typeof e.reason !== 'string' || e.reason.trim().length < 10)
      throw new Error(`exclusion ${e.name} has no written reason`);
    if (map.has(e.name)) throw new Error(`exclusion ${e.name} is listed twice`);
    map.set(e.name, e.reason);
  }
  return map;
}

const enabled = process.env.KESTREL_EVM_STATETESTS === 'all';

test('the exclusion list is well-formed', () => {
  loadExclusions();
});

test(
  "every state test passes on Kestrel's engine, but for the listed exclusions",
  { skip: enabled ? false : 'set KESTREL_EVM_STATETESTS=all to run all ~30,000 cases', timeout: 60 * 60_000 },
  async (t) => {
    const exclusions = loadExclusions();
    const summary = await runPool('kestrel');
    let passed = 0;
    for (const [set, c] of Object.entries(summary.counts)) {
      passed += c.passed;
      t.diagnostic(`${set}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (fork not run)`);
    }
    t.diagnostic(`${passed} passed, ${summary.failures.length} failed in ${(summary.ms / 1000).toFixed(1)} s`);
    const unexpected = summary.failures.filter((f) => !exclusions.has(f.name));
    const failing = new Set(summary.failures.map((f) => f.name));
    const stale = [...exclusions.keys()].filter((name) => !failing.has(name));
    const report = failureCategories(unexpected)
      .slice(0, 15)
      .map((g) => `${g.count} × ${g.key}\n    e.g. ${g.example.name}: ${g.example.error.slice(0, 300)}`);
    assert.equal(unexpected.length, 0, `${unexpected.length} failing cases:\n${report.join('\n')}`);
    assert.deepEqual(stale, [], 'excluded cases that now pass: remove them from exclusions.json');
    const ran = Object.fromEntries(
      Object.entries(summary.counts).map(([set, c]) => [set, { ran: c.passed + c.failed, skipped: c.skipped }]),
    );
    assert.deepEqual(ran, EXPECTED_CASES, 'cases run and skipped per set');
  },
);
