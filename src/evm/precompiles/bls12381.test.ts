// EIP-2537 as Prague activated it: the execution-spec-tests vectors (fixtures/eip2537-eest.json.gz, extracted
// by fixtures/extract-eest.ts) over the mcl-wasm backend and the @noble/curves fallback.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Bls12381Backend } from './bls12381.ts';
import { bls12381Precompiles } from './bls12381.ts';
import { loadMclBls12381 } from './bls12381-mcl.ts';
import { nobleBls12381 } from './bls12381-noble.ts';
import { bareHex, hexToBytes } from '../../primitives/bytes.ts';

interface Vector {
  name: string;
  address: number;
  gas: number;
  input: string;
  success: boolean;
  outLen: number;
  outHash?: string;
}

const vectors: Vector[] = JSON.parse(
  gunzipSync(readFileSync(new URL('./fixtures/eip2537-eest.json.gz', import.meta.url))).toString(),
);

function check(backend: Bls12381Backend, subset: Vector[]): void {
  const pcs = new Map(bls12381Precompiles(backend));
  let failures = 0;
  for (const v of subset) {
    const pc = pcs.get(BigInt(v.address))!;
    const input = hexToBytes(v.input);
    const gas = pc.gas(input, 'Prague');
    const out = gas <= BigInt(v.gas) ? pc.run(input, 'Prague') : undefined;
    const got = {
      success: out !== undefined,
      outLen: out?.length ?? 0,
      hash: out && v.outHash ? '0x' + bareHex(keccak_256(out)) : undefined,
    };
    const want = { success: v.success, outLen: v.outLen, hash: v.success ? v.outHash : undefined };
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      failures++;
      if (failures <= 5)
        assert.fail(`${v.name} @0x${v.address.toString(16)}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
  }
  assert.equal(failures, 0);
}

describe('EIP-2537 execution-spec-tests vectors', () => {
  test('the fixture covers every BLS precompile with valid inputs, and invalid ones (EEST has none for G1ADD)', () => {
    for (let a = 0x0b; a <= 0x11; a++) {
      assert.ok(
        vectors.some((v) => v.address === a && v.success),
        `valid 0x${a.toString(16)}`,
      );
      if (a !== 0x0b)
        assert.ok(
          vectors.some((v) => v.address === a && !v.success),
          `invalid 0x${a.toString(16)}`,
        );
    }
  });

  test(`mcl-wasm: all ${vectors.length} vectors`, async () => {
    check(await loadMclBls12381(), vectors);
  });

  // noble's MSM and pairing cost tens of ms each: the fallback runs the vectors below 2 KB of input.
  const small = vectors.filter((v) => v.input.length <= 4098);
  test(`@noble/curves fallback: ${small.length} vectors below 2 KB`, () => {
    check(nobleBls12381, small);
  });
});

test('a mcl-wasm copy loaded elsewhere in the process cannot switch the curve under ours', async () => {
  const { createRequire } = await import('node:module');
  const ours = await loadMclBls12381();
  const pc = new Map(bls12381Precompiles(ours)).get(0x10n)!;
  const input = hexToBytes(vectors.find((v) => v.address === 0x10 && v.success)!.input);
  const before = bareHex(pc.run(input, 'Prague')!);
  const other = createRequire(import.meta.url)('mcl-wasm') as typeof import('mcl-wasm');
  await other.init(other.BN_SNARK1);
  assert.equal(bareHex(pc.run(input, 'Prague')!), before);
});
