// Seeded random and edge-case inputs for every precompile, shared by the differential test and the bench.
// Valid structures come from @noble/curves (generator multiples, real signatures, a real KZG opening) and are
// then corrupted in the ways the EIPs name: wrong lengths, coordinates ≥ p, non-zero padding, off-curve and
// out-of-subgroup points, bad flags.
import { createHash } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { BLS_P } from './bls12381.ts';
import { BN254_P } from './bn254.ts';
import { bigintToFixedBytes as bigIntToBytes, concatBytes as cat, hexToBytes } from '../../primitives/bytes.ts';
import { mulberry32 } from '../../../test/helpers/random.ts';

/** The shared seeded generator (mulberry32) with byte and choice helpers. */
export class Rng {
  /** A uniform 32-bit value. */
  readonly u32: () => number;
  constructor(seed: number) {
    this.u32 = mulberry32(seed);
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return this.u32() % n;
  }
  /** `n` random bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
  /** A random 256-bit value below `bound`. */
  below(bound: bigint): bigint {
    let x = 0n;
    for (let i = 0; i < 8; i++) x = (x << 32n) | BigInt(this.u32());
    return x % bound;
  }
  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

const w = (x: bigint | number, len = 32) => bigIntToBytes(BigInt(x), len);

/** Mutations shared by all generators: flip a byte, truncate, extend. */
function mutate(rng: Rng, input: Uint8Array): Uint8Array {
  switch (rng.int(6)) {
    case 0: {
      const out = input.slice();
      if (out.length > 0) out[rng.int(out.length)]! ^= 1 << rng.int(8);
      return out;
    }
    case 1:
      return input.subarray(0, rng.int(input.length + 1));
    case 2:
      return cat(input, rng.bytes(1 + rng.int(40)));
    default:
      return input;
  }
}

function ecrecoverInput(rng: Rng): Uint8Array {
  const priv = bigIntToBytes(1n + rng.below(secp256k1.Point.Fn.ORDER - 1n), 32);
  const msg = rng.bytes(32);
  const sig = secp256k1.sign(msg, priv, { prehash: false, format: 'recovered' });
  const v = rng.int(5) === 0 ? rng.pick([0, 1, 26, 29, 27 + 256]) : 27 + sig[0]!;
  const r =
    rng.int(8) === 0
      ? rng.pick([w(0), hexToBytes('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'), rng.bytes(32)])
      : sig.subarray(1, 33);
  const s = rng.int(8) === 0 ? rng.pick([w(0), rng.bytes(32)]) : sig.subarray(33, 65);
  return mutate(rng, cat(msg, w(v), r, s));
}

function modexpInput(rng: Rng): Uint8Array {
  const lens = () => rng.pick([0, 1, 2, 31, 32, 33, 64, rng.int(80), rng.int(200)]);
  const b = lens();
  const e = rng.int(6) === 0 ? 33 + rng.int(40) : lens();
  const m = lens();
  const body = (n: number) => (rng.int(6) === 0 ? new Uint8Array(n) : rng.bytes(n));
  let input = cat(w(b), w(e), w(m), body(b), body(e), body(m));
  // Header edge cases: huge lengths (gas must not overflow or hang), mod 0 and 1.
  switch (rng.int(12)) {
    case 0:
      input = cat(w(rng.pick([2n ** 255n, 2n ** 64n, 2n ** 32n + 1n])), input.subarray(32));
      break;
    case 1:
      input = cat(input.subarray(0, 32), w(rng.pick([2n ** 255n, 2n ** 40n])), input.subarray(64));
      break;
    case 2:
      input = cat(w(0), w(rng.pick([2n ** 255n, 2n ** 30n])), w(0));
      break;
    case 3:
      if (m > 0) input = cat(input.subarray(0, input.length - m), w(rng.int(2), m));
      break;
  }
  return rng.int(5) === 0 ? input.subarray(0, rng.int(input.length + 1)) : input;
}

// bn254 points.
const BN_G = bn254.G1.Point.BASE;
const BN_Q = bn254.G2.Point.BASE;
function bnG1(rng: Rng): Uint8Array {
  switch (rng.int(10)) {
    case 0:
      return new Uint8Array(64);
    case 1:
      return cat(w(1), w(3)); // off the curve
    case 2:
      return cat(BN254_P, w(2)); // x = p
    case 3:
      return rng.bytes(64);
    default: {
      const a = BN_G.multiply(1n + rng.below(1n << 64n)).toAffine();
      return cat(w(a.x), w(a.y));
    }
  }
}
function bnG2Multiple(k: bigint): Uint8Array {
  const a = BN_Q.multiply(k).toAffine();
  return cat(w(a.x.c1), w(a.x.c0), w(a.y.c1), w(a.y.c0));
}
function bnG2(rng: Rng, k: bigint): Uint8Array {
  if (rng.int(10) === 0) return new Uint8Array(128);
  if (rng.int(12) === 0) return rng.bytes(128);
  return bnG2Multiple(k);
}
function bnPairing(rng: Rng): Uint8Array {
  // e(aG, Q)·e(-G, aQ) = 1 when untouched; mutations make it 0 or invalid.
  const a = 1n + rng.below(1n << 32n);
  const p1 = BN_G.multiply(a).toAffine();
  const p2 = BN_G.negate().toAffine();
  const pairs = [cat(w(p1.x), w(p1.y), bnG2Multiple(1n)), cat(w(p2.x), w(p2.y), bnG2Multiple(a))];
  if (rng.int(3) === 0) pairs.push(cat(bnG1(rng), bnG2(rng, 1n + rng.below(1000n))));
  if (rng.int(4) === 0) pairs.length = rng.int(pairs.length + 1);
  return mutate(rng, cat(...pairs));
}

function blake2fInput(rng: Rng): Uint8Array {
  const rounds = rng.pick([0, 1, 2, 12, rng.int(64)]);
  const f = rng.int(8) === 0 ? 2 + rng.int(254) : rng.int(2);
  const input = cat(w(rounds, 4), rng.bytes(208), new Uint8Array([f]));
  return rng.int(6) === 0 ? mutate(rng, input) : input;
}

// A KZG opening made with c-kzg's mainnet setup (see precompiles.test.ts).
const KZG_C = hexToBytes(
  '8e6372a43e8bc4615d057683a729bfc5797c901473001af8472c740e683a20dea14f0e6dadc076ff9f094b85ca0ac94d',
);
const KZG_Z = w(3);
const KZG_Y = hexToBytes('0c4c0388e078c7dd37a5fef50727819323b4bdb37af1953ff791a439cf2bb5fb');
const KZG_PROOF = hexToBytes(
  '8cacf7ab9d742c44f8bc860fe7f2a10572fa381dd3898e240c90dca169fa655bec3aa6463f6b851e01dbf49826701d1b',
);
/** The valid KZG point-evaluation input. */
export function kzgValidInput(): Uint8Array {
  const hash = createHash('sha256').update(KZG_C).digest();
  hash[0] = 1;
  return cat(hash, KZG_Z, KZG_Y, KZG_C, KZG_PROOF);
}
function kzgInput(rng: Rng): Uint8Array {
  const input = kzgValidInput().slice();
  switch (rng.int(5)) {
    case 0:
      return input;
    case 1:
      input[32 + rng.int(64)]! ^= 1 << rng.int(8); // z or y
      return input;
    case 2:
      input[144 + rng.int(48)]! ^= 1 << rng.int(8); // proof
      return input;
    case 3:
      input.set(
        w(rng.pick([0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n, 2n ** 256n - 1n])),
        32 + 32 * rng.int(2),
      );
      return input;
    default:
      return mutate(rng, input);
  }
}

// BLS12-381 points, EIP-2537 encodings.
const fp = (x: bigint) => w(x, 64);
const BLS_G1 = bls12_381.G1.Point.BASE;
const BLS_G2 = bls12_381.G2.Point.BASE;
const { Fp, Fp2 } = bls12_381.fields;
function blsG1(rng: Rng, subgroupOnly = false): Uint8Array {
  const c = rng.int(14);
  if (c === 0) return new Uint8Array(128);
  if (!subgroupOnly && c === 1) {
    // On the curve, outside the subgroup: y² = x³ + 4 for the first square found from a random x.
    for (let x = rng.below(Fp.ORDER); ; x = Fp.add(x, 1n)) {
      const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
      try {
        return cat(fp(x), fp(Fp.sqrt(rhs)));
      } catch {
        continue;
      }
    }
  }
  if (!subgroupOnly && c === 2) return cat(fp(1n), fp(3n)); // off the curve
  const a = BLS_G1.multiply(1n + rng.below(1n << 64n)).toAffine();
  return cat(fp(a.x), fp(a.y));
}
function blsG2(rng: Rng, subgroupOnly = false): Uint8Array {
  const c = rng.int(14);
  if (c === 0) return new Uint8Array(256);
  const b2 = Fp2.create({ c0: 4n, c1: 4n });
  if (!subgroupOnly && c === 1) {
    for (let x0 = rng.below(Fp.ORDER); ; x0 = Fp.add(x0, 1n)) {
      const x = Fp2.create({ c0: x0, c1: 1n });
      try {
        const y = Fp2.sqrt(Fp2.add(Fp2.mul(Fp2.sqr(x), x), b2));
        return cat(fp(x.c0), fp(x.c1), fp(y.c0), fp(y.c1));
      } catch {
        continue;
      }
    }
  }
  if (!subgroupOnly && c === 2) return cat(fp(1n), fp(0n), fp(3n), fp(0n));
  const a = BLS_G2.multiply(1n + rng.below(1n << 64n)).toAffine();
  return cat(fp(a.x.c0), fp(a.x.c1), fp(a.y.c0), fp(a.y.c1));
}
/** Corrupts one field element's encoding: non-zero padding or a value ≥ p. */
function blsEncodingMutation(rng: Rng, input: Uint8Array): Uint8Array {
  if (input.length < 64) return input;
  const out = input.slice();
  const at = 64 * rng.int(Math.floor(out.length / 64));
  if (rng.int(2) === 0) out[at + rng.int(16)] = 1 + rng.int(255);
  else out.set(BLS_P, at + 16);
  return out;
}
function blsInput(rng: Rng, address: number): Uint8Array {
  const scalar = () =>
    rng.int(6) === 0 ? rng.pick([w(0), rng.bytes(32), w(bls12_381.G1.Point.Fn.ORDER)]) : w(rng.below(1n << 128n));
  let input: Uint8Array;
  switch (address) {
    case 0x0b:
      input = cat(blsG1(rng), blsG1(rng));
      break;
    case 0x0c:
      input = cat(...Array.from({ length: 1 + rng.int(3) }, () => cat(blsG1(rng, rng.int(3) !== 0), scalar())));
      break;
    case 0x0d:
      input = cat(blsG2(rng), blsG2(rng));
      break;
    case 0x0e:
      input = cat(...Array.from({ length: 1 + rng.int(2) }, () => cat(blsG2(rng, rng.int(3) !== 0), scalar())));
      break;
    case 0x0f: {
      // e(aP, Q)·e(-P, aQ) = 1, possibly with a random extra pair.
      const a = 1n + rng.below(1n << 32n);
      const p1 = BLS_G1.multiply(a).toAffine();
      const p2 = BLS_G1.negate().toAffine();
      const q1 = BLS_G2.toAffine();
      const q2 = BLS_G2.multiply(a).toAffine();
      const g2 = (q: typeof q1) => cat(fp(q.x.c0), fp(q.x.c1), fp(q.y.c0), fp(q.y.c1));
      const pairs = [cat(fp(p1.x), fp(p1.y), g2(q1)), cat(fp(p2.x), fp(p2.y), g2(q2))];
      if (rng.int(3) === 0) pairs.push(cat(blsG1(rng), blsG2(rng)));
      input = cat(...pairs);
      break;
    }
    case 0x10:
      input = fp(rng.below(Fp.ORDER));
      break;
    default:
      input = cat(fp(rng.below(Fp.ORDER)), fp(rng.below(Fp.ORDER)));
  }
  const m = rng.int(8);
  if (m === 0) return blsEncodingMutation(rng, input);
  if (m === 1) return mutate(rng, input);
  return input;
}

/** `count` seeded inputs for the precompile at `address`. */
export function inputsFor(address: number, count: number, seed = 0x5eed): Uint8Array[] {
  const rng = new Rng(seed ^ (address * 0x9e3779b1));
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    switch (address) {
      case 0x01:
        out.push(ecrecoverInput(rng));
        break;
      case 0x02:
      case 0x03:
      case 0x04:
        out.push(rng.bytes(rng.pick([0, 1, 31, 32, 33, 64, rng.int(300)])));
        break;
      case 0x05:
        out.push(modexpInput(rng));
        break;
      case 0x06:
        out.push(mutate(rng, cat(bnG1(rng), bnG1(rng))));
        break;
      case 0x07:
        out.push(
          mutate(
            rng,
            cat(
              bnG1(rng),
              rng.int(5) === 0 ? rng.pick([w(0), w(2n ** 256n - 1n), w(bn254.G1.Point.Fn.ORDER)]) : rng.bytes(32),
            ),
          ),
        );
        break;
      case 0x08:
        out.push(bnPairing(rng));
        break;
      case 0x09:
        out.push(blake2fInput(rng));
        break;
      case 0x0a:
        out.push(kzgInput(rng));
        break;
      default:
        out.push(blsInput(rng, address));
    }
  }
  return out;
}
