// Differential fuzzing in CI: 2,000 fixed-seed Prague cases on Kestrel's engine and @ethereumjs/vm, which must
// agree on validity, status, gas used, refund, output, logs and post-state root. Longer runs with fresh seeds:
// `node --import tsx test/evm/fuzz/run.ts --seed S --count N --workers W`.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { initKeccak } from '../../../src/evm/keccak.ts';
import { generateCase } from './generate.ts';
import { runFuzzPool } from './pool.ts';

const CI_SEED = 20261125;
const CI_CASES = 2000;

before(async () => {
  await initKeccak();
});

test('the generator is deterministic and covers every tx type it draws', () => {
  const a = generateCase(7);
  const b = generateCase(7);
  assert.deepEqual(a.tx, b.tx);
  assert.deepEqual([...a.pre.keys()], [...b.pre.keys()]);
  const types = new Set(Array.from({ length: 200 }, (_, i) => generateCase(i).tx.type));
  assert.deepEqual([...types].sort(), [0, 1, 2, 4]);
});

test(
  `Kestrel's engine agrees with @ethereumjs/vm on ${CI_CASES} fixed-seed Prague cases`,
  { timeout: 15 * 60_000 },
  async (t) => {
    const summary = await runFuzzPool(CI_SEED, CI_CASES);
    t.diagnostic(`${summary.cases} cases, ${summary.diverged} diverged in ${(summary.ms / 1000).toFixed(1)} s`);
    assert.equal(summary.cases, CI_CASES);
    const sample = summary.divergences
      .slice(0, 10)
      .map(
        (d) =>
          `seed ${d.seed} ${d.field}: kestrel ${d.kestrel.slice(0, 120)} | ethereumjs ${d.ethereumjs.slice(0, 120)}`,
      );
    assert.equal(
      summary.diverged,
      0,
      `divergences (replay: node --import tsx test/evm/fuzz/run.ts --seed S --count 1):\n${sample.join('\n')}`,
    );
  },
);
