// BLS12-381 on mcl-wasm, its own mcl instance (see mcl.ts). With ETH serialization mcl reads and writes
// field elements as 48 big-endian bytes (and rejects values ≥ p); IRTF map mode makes mapToG1/G2 the
// RFC 9380 map_to_curve + clear_cofactor that EIP-2537 specifies.
import type { Bls12381Backend } from './bls12381.ts';
import { allZero } from './bytes.ts';
import { loadMcl, type Mcl } from './mcl.ts';

type G1 = InstanceType<Mcl['G1']>;
type G2 = InstanceType<Mcl['G2']>;
type Fp = InstanceType<Mcl['Fp']>;
type Fp2 = InstanceType<Mcl['Fp2']>;

/** The mcl-wasm BLS12-381 backend; throws when mcl cannot load. */
export async function loadMclBls12381(): Promise<Bls12381Backend> {
  const mcl = await loadMcl('BLS12_381');
  mcl.setETHserialization(true);
  mcl.setMapToMode(mcl.IRTF);
  // Subgroup checks are explicit (isValidOrder) where EIP-2537 asks for them, never implied by isValid.
  mcl.verifyOrderG1(false);
  mcl.verifyOrderG2(false);
  const one = new mcl.Fp();
  one.setInt(1);
  const oneFp2 = new mcl.Fp2();
  oneFp2.setInt(1, 0);

  const fp = (bytes: Uint8Array, offset: number): Fp => {
    const x = new mcl.Fp();
    x.deserialize(bytes.subarray(offset + 16, offset + 64));
    return x;
  };
  const fp2 = (bytes: Uint8Array, offset: number): Fp2 => {
    const x = new mcl.Fp2();
    x.set_a(fp(bytes, offset));
    x.set_b(fp(bytes, offset + 64));
    return x;
  };
  const g1 = (bytes: Uint8Array, offset: number, subgroup: boolean): G1 | undefined => {
    const p = new mcl.G1();
    if (allZero(bytes, offset, offset + 128)) {
      p.clear();
      return p;
    }
    p.setX(fp(bytes, offset));
    p.setY(fp(bytes, offset + 64));
    p.setZ(one);
    return p.isValid() && (!subgroup || p.isValidOrder()) ? p : undefined;
  };
  const g2 = (bytes: Uint8Array, offset: number, subgroup: boolean): G2 | undefined => {
    const q = new mcl.G2();
    if (allZero(bytes, offset, offset + 256)) {
      q.clear();
      return q;
    }
    q.setX(fp2(bytes, offset));
    q.setY(fp2(bytes, offset + 128));
    q.setZ(oneFp2);
    return q.isValid() && (!subgroup || q.isValidOrder()) ? q : undefined;
  };
  const put = (x: Fp, out: Uint8Array, offset: number): void => out.set(x.serialize(), offset + 16);
  const encodeG1 = (p: G1): Uint8Array => {
    const out = new Uint8Array(128);
    if (p.isZero()) return out;
    const n = mcl.normalize(p);
    put(n.getX(), out, 0);
    put(n.getY(), out, 64);
    return out;
  };
  const encodeG2 = (q: G2): Uint8Array => {
    const out = new Uint8Array(256);
    if (q.isZero()) return out;
    const n = mcl.normalize(q);
    const x = n.getX();
    const y = n.getY();
    put(x.get_a(), out, 0);
    put(x.get_b(), out, 64);
    put(y.get_a(), out, 128);
    put(y.get_b(), out, 192);
    return out;
  };
  const scalar = (bytes: Uint8Array, offset: number) => {
    const s = new mcl.Fr();
    s.setBigEndianMod(bytes.subarray(offset, offset + 32));
    return s;
  };

  return {
    name: 'mcl-wasm',
    g1Add(a, b) {
      const p = g1(a, 0, false);
      const q = g1(b, 0, false);
      return p && q ? encodeG1(mcl.add(p, q)) : undefined;
    },
    g2Add(a, b) {
      const p = g2(a, 0, false);
      const q = g2(b, 0, false);
      return p && q ? encodeG2(mcl.add(p, q)) : undefined;
    },
    g1Msm(input, k) {
      const points: G1[] = [];
      const scalars: InstanceType<Mcl['Fr']>[] = [];
      for (let i = 0; i < k; i++) {
        const p = g1(input, i * 160, true);
        if (p === undefined) return undefined;
        points.push(p);
        scalars.push(scalar(input, i * 160 + 128));
      }
      return encodeG1(mcl.mulVec(points, scalars));
    },
    g2Msm(input, k) {
      const points: G2[] = [];
      const scalars: InstanceType<Mcl['Fr']>[] = [];
      for (let i = 0; i < k; i++) {
        const q = g2(input, i * 288, true);
        if (q === undefined) return undefined;
        points.push(q);
        scalars.push(scalar(input, i * 288 + 256));
      }
      return encodeG2(mcl.mulVec(points, scalars));
    },
    pairingCheck(input, k) {
      let acc: InstanceType<Mcl['GT']> | undefined;
      for (let i = 0; i < k; i++) {
        const p = g1(input, i * 384, true);
        const q = g2(input, i * 384 + 128, true);
        if (p === undefined || q === undefined) return undefined;
        if (p.isZero() || q.isZero()) continue; // e(O, Q) = e(P, O) = 1
        const e = mcl.millerLoop(p, q);
        acc = acc === undefined ? e : mcl.mul(acc, e);
      }
      return acc === undefined ? true : mcl.finalExp(acc).isOne();
    },
    mapFpToG1(input) {
      return encodeG1(fp(input, 0).mapToG1());
    },
    mapFp2ToG2(input) {
      return encodeG2(fp2(input, 0).mapToG2());
    },
  };
}
