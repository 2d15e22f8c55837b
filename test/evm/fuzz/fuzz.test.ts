// Differential fuzzing in CI: 2,000 fixed-seed Prague cases and 1,000 Osaka cases (every tx type, blob txs
// included) on Kestrel's engine and @ethereumjs/vm, which must agree on validity, status, gas used, refund, output, logs and post-state root. Longer
// runs with fresh seeds: `node --import tsx test/evm/fuzz/run.ts --seed S --count N --workers W [--fork Osaka]`.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { initKeccak } from '../../../src/primitives/keccak.ts';
import { generateCase } from './generate.ts';
import { runFuzzPool } from './pool.ts';

const CI_SEED = 20261125;
const CI_CASES = 2000;
const CI_OSAKA_SEED = 20261128;
const CI_OSAKA_CASES = 1000;

before(async () => {
  await initKeccak();
});

test('the generator is deterministic and covers every tx type it draws', () => {
  const a = generateCase(7);
  const b = generateCase(7);
  assert.deepEqual(a.tx, b.tx);
  assert.deepEqual([...a.pre.keys()], [...b.pre.keys()]);
  const types = new Set(Array.from({ length: 200 }, (_, i) => generateCase(i).tx.type));
  assert.deepEqual([...types].sort(), [0, 1, 2, 3, 4]);
  // Blob txs reach every blob rule: no hashes, a bad version byte, more than Osaka's 6, a blob fee cap of 0.
  const blobs = Array.from({ length: 2000 }, (_, i) => generateCase(i).tx).filter((t) => t.type === 3);
  assert.ok(blobs.some((t) => t.blobVersionedHashes.length === 0));
  assert.ok(blobs.some((t) => t.blobVersionedHashes.some((h) => h[0] !== 1)));
  assert.ok(blobs.some((t) => t.blobVersionedHashes.length > 6));
  assert.ok(blobs.some((t) => t.maxFeePerBlobGas === 0n) && blobs.every((t) => t.to !== undefined));
});

test('an Osaka case calls P256VERIFY and sits at or past EIP-7825 cap now and then; a Prague case never', () => {
  const osaka = Array.from({ length: 300 }, (_, i) => generateCase(i, 'Osaka'));
  const prague = Array.from({ length: 300 }, (_, i) => generateCase(i));
  const codes = (cs: typeof osaka) =>
    cs.flatMap((c) => [...c.pre.values()].map((a) => Buffer.from(a.code).toString('hex')));
  // PUSH2 0x0100 then a gas operand then a call: how the generator calls P256VERIFY.
  assert.ok(codes(osaka).some((h) => /610100(5a|6[0-9a-f]{2,6}|5f)(f1|f2|f4|fa)/.test(h)));
  assert.ok(!codes(prague).some((h) => /610100(5a|6[0-9a-f]{2,6}|5f)(f1|f2|f4|fa)/.test(h)));
  assert.ok(osaka.some((c) => c.tx.gasLimit === 1n << 24n) && osaka.some((c) => c.tx.gasLimit === (1n << 24n) + 1n));
  assert.ok(prague.every((c) => c.tx.gasLimit < 1n << 24n));
});

for (const [fork, seed, count] of [
  ['Prague', CI_SEED, CI_CASES],
  ['Osaka', CI_OSAKA_SEED, CI_OSAKA_CASES],
] as const) {
  test(
    `Kestrel's engine agrees with @ethereumjs/vm on ${count} fixed-seed ${fork} cases`,
    { timeout: 15 * 60_000 },
    async (t) => {
      const summary = await runFuzzPool(seed, count, undefined, undefined, fork);
      t.diagnostic(`${summary.cases} cases, ${summary.diverged} diverged in ${(summary.ms / 1000).toFixed(1)} s`);
      assert.equal(summary.cases, count);
      const sample = summary.divergences
        .slice(0, 10)
        .map(
          (d) =>
            `seed ${d.seed} ${d.field}: kestrel ${d.kestrel.slice(0, 120)} | ethereumjs ${d.ethereumjs.slice(0, 120)}`,
        );
      assert.equal(
        summary.diverged,
        0,
        `divergences (replay: node --import tsx test/evm/fuzz/run.ts --fork ${fork} --seed S --count 1):\n${sample.join('\n')}`,
      );
    },
  );
}
