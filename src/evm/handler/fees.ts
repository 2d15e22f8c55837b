// EIP-4844 blob gas pricing, with each fork's parameters (Prague per EIP-7691).
import type { Fork } from '../types.ts';

/** Blob gas per blob. */
export const GAS_PER_BLOB = 131072n;
const MIN_BLOB_BASE_FEE = 1n;

/** Blob parameters of a fork. */
export interface BlobParams {
  updateFraction: bigint;
  maxBlobGasPerBlock: bigint;
}

/** Cancun: 6 blobs a block; Prague: 9 (EIP-7691). */
export function blobParams(fork: Fork): BlobParams {
  return fork === 'Prague'
    ? { updateFraction: 5007716n, maxBlobGasPerBlock: 9n * GAS_PER_BLOB }
    : { updateFraction: 3338477n, maxBlobGasPerBlock: 6n * GAS_PER_BLOB };
}

/** factor · e^(numerator / denominator), by the EIP-4844 Taylor series in integers. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}

/** The blob base fee of a block with `excessBlobGas`. */
export function blobBaseFee(excessBlobGas: bigint, fork: Fork): bigint {
  return fakeExponential(MIN_BLOB_BASE_FEE, excessBlobGas, blobParams(fork).updateFraction);
}
