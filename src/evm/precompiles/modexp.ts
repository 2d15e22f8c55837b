// 0x05 modexp (EIP-198) priced per EIP-2565 (Berlin through Prague), and from Osaka per EIP-7883 with EIP-7823's
// 1024-byte bound on each length. BigInt with a 4-bit window: no package we benchmarked beats it
// (bench/precompiles.ts). The header's lengths are 256-bit: gas is computed in bigint before anything is read,
// and `run` never allocates from a header length it has not been paid for (the caller refuses the call when the
// gas exceeds what it has, so `run` only sees lengths the gas bounds).
import { forkRules } from '../forks.ts';
import type { Fork, PurePrecompile } from '../types.ts';
import { bigintToFixedBytes, bytesToBigint } from '../../primitives/bytes.ts';
import { padded } from './bytes.ts';

const EMPTY = new Uint8Array(0);

interface Header {
  baseLen: bigint;
  expLen: bigint;
  modLen: bigint;
}

function header(input: Uint8Array): Header {
  return {
    baseLen: bytesToBigint(padded(input, 0, 32)),
    expLen: bytesToBigint(padded(input, 32, 32)),
    modLen: bytesToBigint(padded(input, 64, 32)),
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

/** EIP-7823 (Osaka): the longest base, exponent or modulus, in bytes; a longer one fails the call. */
export const MODEXP_MAX_LENGTH = 1024n;

/**
 * The iteration count of EIP-2565 and EIP-7883: the exponent's bit length less one, from its first 32 bytes, plus
 * `perByte` for each byte beyond them (8 before Osaka, 16 from it); at least 1.
 */
function iterationCount(input: Uint8Array, baseLen: bigint, expLen: bigint, perByte: bigint): bigint {
  const headLen = expLen < 32n ? Number(expLen) : 32;
  const expHead = bytesToBigint(slice(input, 96n + baseLen, headLen));
  let iterations = expHead === 0n ? 0n : bitLength(expHead) - 1n;
  if (expLen > 32n) iterations += perByte * (expLen - 32n);
  return iterations < 1n ? 1n : iterations;
}

/**
 * Gas of `input` under `fork`. EIP-2565: max(200, ⌊⌈maxLen / 8⌉² × iterations / 3⌋). EIP-7883 (Osaka):
 * max(500, complexity × iterations), complexity 16 up to 32 bytes and 2 × ⌈maxLen / 8⌉² above, 16 iterations a
 * byte of exponent past 32.
 */
export function modexpGas(input: Uint8Array, fork: Fork): bigint {
  const { baseLen, expLen, modLen } = header(input);
  const maxLen = baseLen > modLen ? baseLen : modLen;
  const words = (maxLen + 7n) / 8n;
  if (forkRules(fork).modexpOsaka) {
    const complexity = maxLen <= 32n ? 16n : 2n * words * words;
    const gas = complexity * iterationCount(input, baseLen, expLen, 16n);
    return gas > 500n ? gas : 500n;
  }
  const complexity = words * words;
  if (complexity === 0n) return 200n;
  const gas = (complexity * iterationCount(input, baseLen, expLen, 8n)) / 3n;
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

/** The modexp result for `input` (callers have paid {@link modexpGas}); undefined past EIP-7823's bound (Osaka). */
export function modexp(input: Uint8Array, fork: Fork): Uint8Array | undefined {
  const { baseLen, expLen, modLen } = header(input);
  if (forkRules(fork).modexpOsaka) {
    if (baseLen > MODEXP_MAX_LENGTH || expLen > MODEXP_MAX_LENGTH || modLen > MODEXP_MAX_LENGTH) return undefined;
  }
  if (modLen === 0n) return EMPTY;
  // Paid-for lengths: the gas grows with max(baseLen, modLen)² and with expLen, so these fit in a number.
  const bLen = Number(baseLen);
  const mLen = Number(modLen);
  const mod = bytesToBigint(slice(input, 96n + baseLen + expLen, mLen));
  if (mod === 0n) return new Uint8Array(mLen);
  const base = bytesToBigint(slice(input, 96n, bLen));
  const expStart = 96 + bLen;
  const available = Math.max(0, Math.min(Number(expLen), input.length - expStart));
  const expBytes = available > 0 ? input.subarray(expStart, expStart + available) : new Uint8Array(0);
  return bigintToFixedBytes(modPow(base, expBytes, Number(expLen) - available, mod), mLen);
}

/** 0x05. */
export const modexpPrecompile: PurePrecompile = {
  gas: (input, fork) => modexpGas(input, fork),
  run: (input, fork) => modexp(input, fork),
};
