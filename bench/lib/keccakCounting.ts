// The counting stand-in for src/primitives/keccak.ts (see keccakCountHooks.mjs): the same functions; while
// `recorded.on`, each keccak256 input goes to `recorded.sink` and keccakWord calls are counted.
import * as real from '../../src/primitives/keccak.ts';

/** What the stand-in records while `on`. */
export const recorded = {
  on: false,
  sink: (_data: Uint8Array): void => undefined,
  keccakWordCalls: 0,
};

export const initKeccak = real.initKeccak;

/** keccak256, its input passed to the sink. */
export function keccak256(data: Uint8Array): Uint8Array {
  if (recorded.on) recorded.sink(data);
  return real.keccak256(data);
}

/** keccakWord (the engine's KECCAK256), counted. */
export function keccakWord(data: Uint8Array, off: number, len: number): bigint {
  if (recorded.on) recorded.keccakWordCalls++;
  return real.keccakWord(data, off, len);
}
