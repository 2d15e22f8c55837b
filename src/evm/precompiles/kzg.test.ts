// 0x0a point evaluation over c-kzg and the micro-eth-signer fallback: the execution-spec-tests vectors
// (fixtures/eip4844-eest.json.gz: valid and invalid inputs and c-kzg's own verify_kzg_proof cases).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { hexToBytes } from '../../primitives/bytes.ts';
import { type KzgVerifier, kzgPointEvaluationPrecompile, loadCKzg, loadMicroKzg } from './kzg.ts';

const vectors: { name: string; input: string; success: boolean }[] = JSON.parse(
  gunzipSync(readFileSync(new URL('./fixtures/eip4844-eest.json.gz', import.meta.url))).toString(),
);

function check(verifier: KzgVerifier): void {
  const pc = kzgPointEvaluationPrecompile(() => verifier);
  const wrong = vectors.filter((v) => (pc.run(hexToBytes(v.input), 'Cancun') !== undefined) !== v.success);
  assert.deepEqual(
    wrong.map((v) => v.name),
    [],
  );
}

describe('KZG point evaluation: execution-spec-tests vectors', () => {
  test('the fixture has valid and invalid inputs', () => {
    assert.ok(vectors.filter((v) => v.success).length >= 20);
    assert.ok(vectors.filter((v) => !v.success).length >= 20);
  });

  test('c-kzg', (t) => {
    const verifier = loadCKzg();
    if (verifier === undefined) {
      // The native add-on did not build on this machine: the fallback below is what runs here.
      t.skip('c-kzg add-on not loadable');
      return;
    }
    check(verifier);
  });

  test('micro-eth-signer fallback', () => {
    check(loadMicroKzg());
  });
});
