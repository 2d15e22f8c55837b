// 0x05 modexp (EIP-198) priced per EIP-2565 (Berlin through Prague). BigInt with a 4-bit window: no package
// beats it (measured in REFERENCE-ENGINE.md §8). The header's lengths are 256-bit: gas is computed in bigint
// before anything is read, and `run` never allocates from a header length it has not been paid for (the
// caller refuses the call when the gas exceeds what it has, so `run` only sees lengths the gas bounds).
import type { PurePrecompile } from '../types.ts';
import { bigIntToBytes, bytesToBigInt, padded } from './bytes.ts';

const EMPTY = new Uint8Array(0);

interface Header {
  baseLen: bigint;
  expLen: bigint;
  modLen: bigint;
}

function header(input: Uint8Array): Header {
  return {
    baseLen: bytesToBigInt(padded(input, 0, 32)),
    expLen: bytesToBigInt(padded(input, 32, 32)),
    modLen: bytesToBigInt(padded(input, 64, 32)),
  };
}

/** Bytes of `input` from a bigint offset, zero-padded, without allocating past `length` (≤ 32 here). */
function slice(input: Uint8Array, offset: bigint, length: number): Uint8Array {
  if (offset >= BigInt(input.length)) return new Uint8Array(length);
  return padded(input, Number(offset), length);
}

function bitLength(x: bigint): bigint {
  return x === 0n ? 0n : BigInt(x.toString(2).length);
}

/** EIP-2565 gas: max(200, ⌊mult_complexity × iteration_count / 3⌋). */
export function modexpGas(input: Uint8Array): bigint {
  const { baseLen, expLen, modLen } = header(input);
  const maxLen = baseLen > modLen ? baseLen : modLen;
  const words = (maxLen + 7n) / 8n;
  const complexity = words * words;
  if (complexity === 0n) return 200n;
  // The first 32 bytes of the exponent decide its bit length; the rest count 8 iterations per byte.
  const headLen = expLen < 32n ? Number(expLen) : 32;
  const expHead = bytesToBigInt(slice(input, 96n + baseLen, headLen));
  let iterations: bigint;
  if (expLen <= 32n) iterations = expHead === 0n ? 0n : bitLength(expHead) - 1n;
  else iterations = 8n * (expLen - 32n) + (expHead === 0n ? 0n : bitLength(expHead) - 1n);
  if (iterations < 1n) iterations = 1n;
  const gas = (complexity * iterations) / 3n;
  return gas > 200n ? gas : 200n;
}

/**
 * base^exp mod m with a fixed 4-bit window over the exponent's bytes. `expBytes` are followed by
 * `trailingZeroBytes` implicit zero bytes (an exponent longer than the input), which cost squarings only.
 */
export function modPow(base: bigint, expBytes: Uint8Array, trailingZeroBytes: number, m: bigint): bigint {
  if (m === 1n) return 0n;
  const b = base % m;
  const table: bigint[] = [1n, b];
  for (let i = 2; i < 16; i++) table.push((table[i - 1]! * b) % m);
  let acc = 1n;
  let started = false;
  for (let i = 0; i < expBytes.length; i++) {
    const byte = expBytes[i]!;
    for (const nibble of [byte >> 4, byte & 15]) {
      if (started) {
        acc = (acc * acc) % m;
        acc = (acc * acc) % m;
        acc = (acc * acc) % m;
        acc = (acc * acc) % m;
        if (nibble !== 0) acc = (acc * table[nibble]!) % m;
      } else if (nibble !== 0) {
        acc = table[nibble]!;
        started = true;
      }
    }
  }
  if (!started) return 1n % m;
  // Squaring 0 or 1 changes nothing: stop early instead of spinning through a long zero tail.
  for (let i = 0; i < trailingZeroBytes * 8 && acc > 1n; i++) acc = (acc * acc) % m;
  return acc;
}

/** The modexp result for `input` (callers have paid {@link modexpGas}). */
export function modexp(input: Uint8Array): Uint8Array {
  const { baseLen, expLen, modLen } = header(input);
  if (modLen === 0n) return EMPTY;
  // Paid-for lengths: the gas grows with max(baseLen, modLen)² and with expLen, so these fit in a number.
  const bLen = Number(baseLen);
  const mLen = Number(modLen);
  const mod = bytesToBigInt(slice(input, 96n + baseLen + expLen, mLen));
  if (mod === 0n) return new Uint8Array(mLen);
  const base = bytesToBigInt(slice(input, 96n, bLen));
  const expStart = 96 + bLen;
  const available = Math.max(0, Math.min(Number(expLen), input.length - expStart));
  const expBytes = available > 0 ? input.subarray(expStart, expStart + available) : new Uint8Array(0);
  return bigIntToBytes(modPow(base, expBytes, Number(expLen) - available, mod), mLen);
}

/** 0x05. */
export const modexpPrecompile: PurePrecompile = {
  gas: (input) => modexpGas(input),
  run: (input) => modexp(input),
};
