// bn254 on mcl-wasm (BN_SNARK1), its own mcl instance (see mcl.ts). mcl serializes this curve's field
// elements little-endian, so coordinates are reversed on the way in and out.
import type { Bn254Backend } from './bn254.ts';
import { allZero } from './bytes.ts';
import { loadMcl, type Mcl } from './mcl.ts';

type G1 = InstanceType<Mcl['G1']>;
type G2 = InstanceType<Mcl['G2']>;
type Fp = InstanceType<Mcl['Fp']>;

/** The mcl-wasm bn254 backend; throws when mcl cannot load. */
export async function loadMclBn254(): Promise<Bn254Backend> {
  const mcl = await loadMcl('BN_SNARK1');
  const one = new mcl.Fp();
  one.setInt(1);
  const oneFp2 = new mcl.Fp2();
  oneFp2.setInt(1, 0);

  const le = new Uint8Array(32);
  const fp = (bytes: Uint8Array): Fp => {
    // deserialize (little-endian, rejects values ≥ p) is ~5× faster than setBigEndianMod.
    for (let i = 0; i < 32; i++) le[i] = bytes[31 - i]!;
    const x = new mcl.Fp();
    x.deserialize(le);
    return x;
  };
  const fpBytes = (x: Fp, out: Uint8Array, offset: number): void => {
    const le = x.serialize();
    for (let i = 0; i < 32; i++) out[offset + i] = le[31 - i]!;
  };
  const g1 = (bytes: Uint8Array): G1 | undefined => {
    const p = new mcl.G1();
    if (allZero(bytes)) {
      p.clear(); // the point at infinity
      return p;
    }
    p.setX(fp(bytes.subarray(0, 32)));
    p.setY(fp(bytes.subarray(32, 64)));
    p.setZ(one);
    return p.isValid() ? p : undefined;
  };
  const g2 = (bytes: Uint8Array): G2 | undefined => {
    const q = new mcl.G2();
    if (allZero(bytes)) {
      q.clear();
      return q;
    }
    const x = new mcl.Fp2();
    x.set_a(fp(bytes.subarray(32, 64)));
    x.set_b(fp(bytes.subarray(0, 32)));
    const y = new mcl.Fp2();
    y.set_a(fp(bytes.subarray(96, 128)));
    y.set_b(fp(bytes.subarray(64, 96)));
    q.setX(x);
    q.setY(y);
    q.setZ(oneFp2);
    return q.isValid() && q.isValidOrder() ? q : undefined;
  };
  const encode = (p: G1): Uint8Array => {
    const out = new Uint8Array(64);
    if (p.isZero()) return out;
    const n = mcl.normalize(p);
    fpBytes(n.getX(), out, 0);
    fpBytes(n.getY(), out, 32);
    return out;
  };

  return {
    name: 'mcl-wasm',
    add(a, b) {
      const p = g1(a);
      const q = g1(b);
      if (p === undefined || q === undefined) return undefined;
      return encode(mcl.add(p, q));
    },
    mul(point, scalar) {
      const p = g1(point);
      if (p === undefined) return undefined;
      const s = new mcl.Fr();
      s.setBigEndianMod(scalar);
      return encode(mcl.mul(p, s));
    },
    pairingCheck(pairs) {
      let acc: InstanceType<Mcl['GT']> | undefined;
      for (let i = 0; i < pairs.length; i += 192) {
        const p = g1(pairs.subarray(i, i + 64));
        const q = g2(pairs.subarray(i + 64, i + 192));
        if (p === undefined || q === undefined) return undefined;
        if (p.isZero() || q.isZero()) continue; // e(O, Q) = e(P, O) = 1
        const e = mcl.millerLoop(p, q);
        acc = acc === undefined ? e : mcl.mul(acc, e);
      }
      return acc === undefined ? true : mcl.finalExp(acc).isOne();
    },
  };
}
