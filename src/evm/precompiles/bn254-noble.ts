// bn254 on @noble/curves: the pure-JS fallback when mcl-wasm cannot load, and the test oracle.
import { bn254 } from '@noble/curves/bn254.js';
import type { Bn254Backend } from './bn254.ts';
import { bigintToFixedBytes, bytesToBigint } from '../../primitives/bytes.ts';
import { allZero } from './bytes.ts';

const { G1, G2, fields } = bn254;
type G1Point = InstanceType<typeof G1.Point>;
type G2Point = InstanceType<typeof G2.Point>;
const R = G1.Point.Fn.ORDER;

function g1(bytes: Uint8Array): G1Point | undefined {
  if (allZero(bytes)) return G1.Point.ZERO;
  try {
    const p = G1.Point.fromAffine({
      x: bytesToBigint(bytes.subarray(0, 32)),
      y: bytesToBigint(bytes.subarray(32, 64)),
    });
    p.assertValidity();
    return p;
  } catch {
    return undefined;
  }
}

function g2(bytes: Uint8Array): G2Point | undefined {
  if (allZero(bytes)) return G2.Point.ZERO;
  try {
    // EIP-197 writes the imaginary part first; noble's Fp2 is { c0: real, c1: imaginary }.
    const x = fields.Fp2.create({
      c0: bytesToBigint(bytes.subarray(32, 64)),
      c1: bytesToBigint(bytes.subarray(0, 32)),
    });
    const y = fields.Fp2.create({
      c0: bytesToBigint(bytes.subarray(96, 128)),
      c1: bytesToBigint(bytes.subarray(64, 96)),
    });
    const q = G2.Point.fromAffine({ x, y });
    q.assertValidity(); // curve and subgroup
    return q;
  } catch {
    return undefined;
  }
}

function encode(p: G1Point): Uint8Array {
  const out = new Uint8Array(64);
  if (p.is0()) return out;
  const { x, y } = p.toAffine();
  out.set(bigintToFixedBytes(x, 32), 0);
  out.set(bigintToFixedBytes(y, 32), 32);
  return out;
}

/** The @noble/curves bn254 backend. */
export const nobleBn254: Bn254Backend = {
  name: '@noble/curves',
  add(a, b) {
    const p = g1(a);
    const q = g1(b);
    if (p === undefined || q === undefined) return undefined;
    return encode(p.add(q));
  },
  mul(point, scalar) {
    const p = g1(point);
    if (p === undefined) return undefined;
    return encode(p.multiplyUnsafe(bytesToBigint(scalar) % R));
  },
  pairingCheck(pairs) {
    const batch: { g1: G1Point; g2: G2Point }[] = [];
    for (let i = 0; i < pairs.length; i += 192) {
      const p = g1(pairs.subarray(i, i + 64));
      const q = g2(pairs.subarray(i + 64, i + 192));
      if (p === undefined || q === undefined) return undefined;
      // noble's pairing rejects the point at infinity; its pairing is 1, so the pair drops out.
      if (!p.is0() && !q.is0()) batch.push({ g1: p, g2: q });
    }
    if (batch.length === 0) return true;
    return fields.Fp12.eql(bn254.pairingBatch(batch), fields.Fp12.ONE);
  },
};
