// 0x06–0x08: alt_bn128 (bn254) addition, scalar multiplication and pairing check, encoded per EIP-196/197
// and priced per EIP-1108. This file holds the encoding checks and gas; the curve arithmetic comes from a
// backend (mcl-wasm, or @noble/curves when the wasm cannot load).
import type { PurePrecompile } from '../types.ts';
import { lessThan, padded } from './bytes.ts';

/** Curve arithmetic over validated encodings: coordinates are 32-byte big-endian and below p. */
export interface Bn254Backend {
  readonly name: string;
  /** a + b for two 64-byte G1 encodings (x ‖ y, all-zero = infinity); undefined when a point is off the curve. */
  add(a: Uint8Array, b: Uint8Array): Uint8Array | undefined;
  /** scalar × point for a 64-byte G1 encoding and a 32-byte scalar (any value, reduced mod r). */
  mul(point: Uint8Array, scalar: Uint8Array): Uint8Array | undefined;
  /**
   * Whether the product of the pairings is one, for a concatenation of 192-byte pairs (G1 64 bytes, then G2
   * as x_imag ‖ x_real ‖ y_imag ‖ y_real); undefined when a point is off its curve or G2 is outside the subgroup.
   */
  pairingCheck(pairs: Uint8Array): boolean | undefined;
}

/** The base field modulus p, big-endian. */
export const BN254_P = Buffer.from('30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47', 'hex');

/** True when every 32-byte coordinate of `bytes` is below p. */
export function coordinatesBelowP(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i += 32) {
    if (!lessThan(bytes.subarray(i, i + 32), BN254_P)) return false;
  }
  return true;
}

/** 0x06 ADD: 150 gas; the input is zero-padded or truncated to 128 bytes. */
export function bn254AddPrecompile(backend: Bn254Backend): PurePrecompile {
  return {
    gas: () => 150n,
    run: (input) => {
      const data = padded(input, 0, 128);
      if (!coordinatesBelowP(data)) return undefined;
      return backend.add(data.subarray(0, 64), data.subarray(64, 128));
    },
  };
}

/** 0x07 MUL: 6000 gas; the input is zero-padded or truncated to 96 bytes. */
export function bn254MulPrecompile(backend: Bn254Backend): PurePrecompile {
  return {
    gas: () => 6000n,
    run: (input) => {
      const data = padded(input, 0, 96);
      const point = data.subarray(0, 64);
      if (!coordinatesBelowP(point)) return undefined;
      return backend.mul(point, data.subarray(64, 96));
    },
  };
}

/** 0x08 pairing check: 45000 + 34000 per 192-byte pair; output is the 32-byte word 1 or 0. */
export function bn254PairingPrecompile(backend: Bn254Backend): PurePrecompile {
  return {
    gas: (input) => 45000n + 34000n * BigInt(Math.floor(input.length / 192)),
    run: (input) => {
      if (input.length % 192 !== 0) return undefined;
      if (!coordinatesBelowP(input)) return undefined;
      const ok = backend.pairingCheck(input);
      if (ok === undefined) return undefined;
      const out = new Uint8Array(32);
      out[31] = ok ? 1 : 0;
      return out;
    },
  };
}
