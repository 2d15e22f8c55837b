// BLS12-381 on @noble/curves: the pure-JS fallback when mcl-wasm cannot load, and the test oracle.
// noble's assertValidity always runs the subgroup check, which EIP-2537 ADD must not require, so the
// curve equation is checked here and the subgroup (isTorsionFree) only where the EIP asks for it.
import { pippenger } from '@noble/curves/abstract/curve.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import type { Bls12381Backend } from './bls12381.ts';
import { bigintToFixedBytes, bytesToBigint } from '../../primitives/bytes.ts';
import { allZero } from './bytes.ts';

const { G1, G2, fields } = bls12_381;
const { Fp, Fp2, Fp12 } = fields;
type G1Point = InstanceType<typeof G1.Point>;
type G2Point = InstanceType<typeof G2.Point>;
type Fp2Value = ReturnType<typeof Fp2.create>;
const R = G1.Point.Fn.ORDER;
const B1 = 4n;
const B2 = Fp2.create({ c0: 4n, c1: 4n });

const fp = (bytes: Uint8Array, offset: number): bigint => bytesToBigint(bytes.subarray(offset + 16, offset + 64));
const fp2 = (bytes: Uint8Array, offset: number): Fp2Value =>
  Fp2.create({ c0: fp(bytes, offset), c1: fp(bytes, offset + 64) });

function g1(bytes: Uint8Array, offset: number, subgroup: boolean): G1Point | undefined {
  if (allZero(bytes, offset, offset + 128)) return G1.Point.ZERO;
  const x = fp(bytes, offset);
  const y = fp(bytes, offset + 64);
  if (!Fp.eql(Fp.sqr(y), Fp.add(Fp.mul(Fp.sqr(x), x), B1))) return undefined;
  const p = G1.Point.fromAffine({ x, y });
  return !subgroup || p.isTorsionFree() ? p : undefined;
}

function g2(bytes: Uint8Array, offset: number, subgroup: boolean): G2Point | undefined {
  if (allZero(bytes, offset, offset + 256)) return G2.Point.ZERO;
  const x = fp2(bytes, offset);
  const y = fp2(bytes, offset + 128);
  if (!Fp2.eql(Fp2.sqr(y), Fp2.add(Fp2.mul(Fp2.sqr(x), x), B2))) return undefined;
  const q = G2.Point.fromAffine({ x, y });
  return !subgroup || q.isTorsionFree() ? q : undefined;
}

function encodeG1(p: G1Point): Uint8Array {
  const out = new Uint8Array(128);
  if (p.is0()) return out;
  const { x, y } = p.toAffine();
  out.set(bigintToFixedBytes(x, 48), 16);
  out.set(bigintToFixedBytes(y, 48), 80);
  return out;
}

function encodeG2(q: G2Point): Uint8Array {
  const out = new Uint8Array(256);
  if (q.is0()) return out;
  const { x, y } = q.toAffine();
  out.set(bigintToFixedBytes(x.c0, 48), 16);
  out.set(bigintToFixedBytes(x.c1, 48), 80);
  out.set(bigintToFixedBytes(y.c0, 48), 144);
  out.set(bigintToFixedBytes(y.c1, 48), 208);
  return out;
}

/** The @noble/curves BLS12-381 backend. */
export const nobleBls12381: Bls12381Backend = {
  name: '@noble/curves',
  g1Add(a, b) {
    const p = g1(a, 0, false);
    const q = g1(b, 0, false);
    return p && q ? encodeG1(p.add(q)) : undefined;
  },
  g2Add(a, b) {
    const p = g2(a, 0, false);
    const q = g2(b, 0, false);
    return p && q ? encodeG2(p.add(q)) : undefined;
  },
  g1Msm(input, k) {
    const points: G1Point[] = [];
    const scalars: bigint[] = [];
    for (let i = 0; i < k; i++) {
      const p = g1(input, i * 160, true);
      if (p === undefined) return undefined;
      points.push(p);
      scalars.push(bytesToBigint(input.subarray(i * 160 + 128, i * 160 + 160)) % R);
    }
    return encodeG1(pippenger(G1.Point, points, scalars));
  },
  g2Msm(input, k) {
    const points: G2Point[] = [];
    const scalars: bigint[] = [];
    for (let i = 0; i < k; i++) {
      const q = g2(input, i * 288, true);
      if (q === undefined) return undefined;
      points.push(q);
      scalars.push(bytesToBigint(input.subarray(i * 288 + 256, i * 288 + 288)) % R);
    }
    return encodeG2(pippenger(G2.Point, points, scalars));
  },
  pairingCheck(input, k) {
    const batch: { g1: G1Point; g2: G2Point }[] = [];
    for (let i = 0; i < k; i++) {
      const p = g1(input, i * 384, true);
      const q = g2(input, i * 384 + 128, true);
      if (p === undefined || q === undefined) return undefined;
      if (!p.is0() && !q.is0()) batch.push({ g1: p, g2: q });
    }
    if (batch.length === 0) return true;
    return Fp12.eql(bls12_381.pairingBatch(batch), Fp12.ONE);
  },
  mapFpToG1(input) {
    // The .d.ts types mapToCurve as taking bigint[] and returning an affine point; at runtime G1's takes one
    // bigint and returns a Point (REFERENCE-ENGINE.md §5).
    const map = G1.mapToCurve as unknown as (u: bigint) => G1Point;
    return encodeG1(map(fp(input, 0)));
  },
  mapFp2ToG2(input) {
    const map = G2.mapToCurve as unknown as (u: bigint[]) => G2Point;
    return encodeG2(map([fp(input, 0), fp(input, 64)]));
  },
};
