// 0x0b–0x11: BLS12-381 operations of EIP-2537 as activated in Prague. This file holds the encoding checks
// (lengths, 64-byte field elements whose top 16 bytes are zero and whose value is below p) and the gas
// schedule with the MSM discount tables; the curve arithmetic comes from a backend (mcl-wasm, or
// @noble/curves when the wasm cannot load).
import type { PurePrecompile } from '../types.ts';
import { allZero, lessThan } from './bytes.ts';

/**
 * Curve arithmetic over validated encodings. Points are 128-byte (G1) or 256-byte (G2) EIP-2537 encodings
 * whose field elements passed {@link fieldElementsValid}; all-zero is the point at infinity.
 */
export interface Bls12381Backend {
  readonly name: string;
  /** a + b; on-curve check only (EIP-2537 ADD takes points outside the subgroup). */
  g1Add(a: Uint8Array, b: Uint8Array): Uint8Array | undefined;
  g2Add(a: Uint8Array, b: Uint8Array): Uint8Array | undefined;
  /** Σ scalarᵢ·pointᵢ over k (point ‖ 32-byte scalar) items; every point on the curve and in the subgroup. */
  g1Msm(input: Uint8Array, k: number): Uint8Array | undefined;
  g2Msm(input: Uint8Array, k: number): Uint8Array | undefined;
  /** Whether Π e(P, Q) = 1 over k (G1 ‖ G2) pairs; every point on its curve and in the subgroup. */
  pairingCheck(input: Uint8Array, k: number): boolean | undefined;
  /** map_to_curve (SSWU + isogeny) then clear_cofactor of one 64-byte Fp element. */
  mapFpToG1(fp: Uint8Array): Uint8Array;
  /** The same for one 128-byte Fp2 element (c0 ‖ c1). */
  mapFp2ToG2(fp2: Uint8Array): Uint8Array;
}

/** The base field modulus p, 48 bytes big-endian. */
export const BLS_P = Buffer.from(
  '1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab',
  'hex',
);

const G1_LEN = 128;
const G2_LEN = 256;
const SCALAR_LEN = 32;
const G1_MSM_ITEM = G1_LEN + SCALAR_LEN;
const G2_MSM_ITEM = G2_LEN + SCALAR_LEN;
const PAIR_LEN = G1_LEN + G2_LEN;

// EIP-2537 MSM discounts in per mille for k = 1..128 items; larger k uses the last entry.
const G1_DISCOUNT = [
  1000, 949, 848, 797, 764, 750, 738, 728, 719, 712, 705, 698, 692, 687, 682, 677, 673, 669, 665, 661, 658, 654, 651,
  648, 645, 642, 640, 637, 635, 632, 630, 627, 625, 623, 621, 619, 617, 615, 613, 611, 609, 608, 606, 604, 603, 601,
  599, 598, 596, 595, 593, 592, 591, 589, 588, 586, 585, 584, 582, 581, 580, 579, 577, 576, 575, 574, 573, 572, 570,
  569, 568, 567, 566, 565, 564, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 551, 550, 549, 548, 547,
  547, 546, 545, 544, 543, 542, 541, 540, 540, 539, 538, 537, 536, 536, 535, 534, 533, 532, 532, 531, 530, 529, 528,
  528, 527, 526, 525, 525, 524, 523, 522, 522, 521, 520, 520, 519,
];
const G2_DISCOUNT = [
  1000, 1000, 923, 884, 855, 832, 812, 796, 782, 770, 759, 749, 740, 732, 724, 717, 711, 704, 699, 693, 688, 683, 679,
  674, 670, 666, 663, 659, 655, 652, 649, 646, 643, 640, 637, 634, 632, 629, 627, 624, 622, 620, 618, 615, 613, 611,
  609, 607, 606, 604, 602, 600, 598, 597, 595, 593, 592, 590, 589, 587, 586, 584, 583, 582, 580, 579, 578, 576, 575,
  574, 573, 571, 570, 569, 568, 567, 566, 565, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 552, 551,
  550, 549, 548, 547, 546, 545, 545, 544, 543, 542, 541, 541, 540, 539, 538, 537, 537, 536, 535, 535, 534, 533, 532,
  532, 531, 530, 530, 529, 528, 528, 527, 526, 526, 525, 524, 524,
];

/** EIP-2537 gas constants. */
export const BLS_GAS = {
  g1Add: 375n,
  g1Mul: 12000n,
  g2Add: 600n,
  g2Mul: 22500n,
  pairingBase: 37700n,
  pairingPerPair: 32600n,
  mapG1: 5500n,
  mapG2: 23800n,
} as const;

/** MSM gas: k × mul_cost × discount(k) / 1000 (integer division); 0 for an input too short for one item. */
export function msmGas(k: number, mulCost: bigint, discounts: readonly number[]): bigint {
  if (k === 0) return 0n;
  const discount = discounts[Math.min(k, discounts.length) - 1]!;
  return (BigInt(k) * mulCost * BigInt(discount)) / 1000n;
}

/** True when each 64-byte field element of `bytes[from, to)` has 16 zero top bytes and a value below p. */
export function fieldElementsValid(bytes: Uint8Array, from = 0, to = bytes.length): boolean {
  for (let i = from; i < to; i += 64) {
    if (!allZero(bytes, i, i + 16) || !lessThan(bytes.subarray(i + 16, i + 64), BLS_P)) return false;
  }
  return true;
}

/** Field elements of the points in `count` items of `itemLen` bytes, each point the first `pointLen` bytes. */
function itemPointsValid(input: Uint8Array, count: number, itemLen: number, pointLen: number): boolean {
  for (let i = 0; i < count; i++) {
    if (!fieldElementsValid(input, i * itemLen, i * itemLen + pointLen)) return false;
  }
  return true;
}

/** G1ADD / G2ADD: two points of `len` bytes each, a fixed price (no subgroup check, per the EIP). */
function addition(
  len: number,
  gas: bigint,
  add: (x: Uint8Array, y: Uint8Array) => Uint8Array | undefined,
): PurePrecompile {
  return {
    gas: () => gas,
    run: (input) =>
      input.length === 2 * len && fieldElementsValid(input)
        ? add(input.subarray(0, len), input.subarray(len))
        : undefined,
  };
}

/** G1MSM / G2MSM: k (point, scalar) items, priced with the EIP's discount table. */
function msm(
  itemLen: number,
  pointLen: number,
  mulGas: bigint,
  discount: readonly number[],
  run: (input: Uint8Array, k: number) => Uint8Array | undefined,
): PurePrecompile {
  return {
    gas: (input) => msmGas(Math.floor(input.length / itemLen), mulGas, discount),
    run: (input) => {
      const k = input.length / itemLen;
      if (k === 0 || !Number.isInteger(k) || !itemPointsValid(input, k, itemLen, pointLen)) return undefined;
      return run(input, k);
    },
  };
}

/** The seven EIP-2537 precompiles over a backend, by address 0x0b..0x11. */
export function bls12381Precompiles(b: Bls12381Backend): [bigint, PurePrecompile][] {
  return [
    [0x0bn, addition(G1_LEN, BLS_GAS.g1Add, (x, y) => b.g1Add(x, y))],
    [0x0cn, msm(G1_MSM_ITEM, G1_LEN, BLS_GAS.g1Mul, G1_DISCOUNT, (input, k) => b.g1Msm(input, k))],
    [0x0dn, addition(G2_LEN, BLS_GAS.g2Add, (x, y) => b.g2Add(x, y))],
    [0x0en, msm(G2_MSM_ITEM, G2_LEN, BLS_GAS.g2Mul, G2_DISCOUNT, (input, k) => b.g2Msm(input, k))],
    [
      0x0fn,
      {
        gas: (input) => BLS_GAS.pairingBase + BLS_GAS.pairingPerPair * BigInt(Math.floor(input.length / PAIR_LEN)),
        run: (input) => {
          const k = input.length / PAIR_LEN;
          if (k === 0 || !Number.isInteger(k) || !fieldElementsValid(input)) return undefined;
          const ok = b.pairingCheck(input, k);
          if (ok === undefined) return undefined;
          const out = new Uint8Array(32);
          out[31] = ok ? 1 : 0;
          return out;
        },
      },
    ],
    [
      0x10n,
      {
        gas: () => BLS_GAS.mapG1,
        run: (input) => (input.length === 64 && fieldElementsValid(input) ? b.mapFpToG1(input) : undefined),
      },
    ],
    [
      0x11n,
      {
        gas: () => BLS_GAS.mapG2,
        run: (input) => (input.length === 128 && fieldElementsValid(input) ? b.mapFp2ToG2(input) : undefined),
      },
    ],
  ];
}
