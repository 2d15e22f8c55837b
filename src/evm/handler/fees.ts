// EIP-4844 blob gas pricing with each fork's schedule (forks.ts), and EIP-7918's reserve price (Osaka) in the
// excess blob gas update.
import type { Fork } from '../types.ts';
import { type BlobSchedule, forkRules } from '../forks.ts';

/** Blob gas per blob. */
export const GAS_PER_BLOB = 131072n;
/** The blob base fee at zero excess blob gas, on every fork. */
export const MIN_BLOB_BASE_FEE = 1n;
/** EIP-7918's BLOB_BASE_COST: the execution gas a blob is priced at, at least. */
export const BLOB_BASE_COST = 1n << 13n;

/** Blob parameters of a fork. */
export interface BlobParams {
  updateFraction: bigint;
  maxBlobGasPerBlock: bigint;
}

/** The fork's blob gas limit per block and update fraction (Cancun: 6 blobs; Prague and Osaka: 9). */
export function blobParams(fork: Fork): BlobParams {
  const b = forkRules(fork).blobs;
  return { updateFraction: b.updateFraction, maxBlobGasPerBlock: BigInt(b.max) * GAS_PER_BLOB };
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

/** The blob base fee of a block with `excessBlobGas` under a blob schedule. */
export function blobBaseFeeOf(excessBlobGas: bigint, schedule: BlobSchedule): bigint {
  return fakeExponential(MIN_BLOB_BASE_FEE, excessBlobGas, schedule.updateFraction);
}

/** The blob base fee of a block with `excessBlobGas`. */
export function blobBaseFee(excessBlobGas: bigint, fork: Fork): bigint {
  return blobBaseFeeOf(excessBlobGas, forkRules(fork).blobs);
}

/** The parent block fields the excess blob gas of its child derives from. */
export interface BlobParent {
  excessBlobGas: bigint;
  blobGasUsed: bigint;
  baseFee: bigint;
}

/**
 * The child's excess blob gas (EIP-4844), under `schedule`. With `reservePrice` (EIP-7918, Osaka) a parent whose
 * blob price is below BLOB_BASE_COST execution gas at its base fee keeps its excess, plus the blobs it carried
 * scaled by (max − target) / max, so the blob fee climbs back instead of decaying while execution is dear.
 */
export function excessBlobGasAfter(parent: BlobParent, schedule: BlobSchedule, reservePrice: boolean): bigint {
  const target = BigInt(schedule.target) * GAS_PER_BLOB;
  const total = parent.excessBlobGas + parent.blobGasUsed;
  if (total < target) return 0n;
  if (reservePrice) {
    const blobPrice = GAS_PER_BLOB * blobBaseFeeOf(parent.excessBlobGas, schedule);
    if (BLOB_BASE_COST * parent.baseFee > blobPrice) {
      const max = BigInt(schedule.max);
      return parent.excessBlobGas + (parent.blobGasUsed * (max - BigInt(schedule.target))) / max;
    }
  }
  return total - target;
}

/** The excess blob gas of the block after `parent` under `fork`'s schedule and rules. */
export function nextExcessBlobGas(parent: BlobParent, fork: Fork): bigint {
  const rules = forkRules(fork);
  return excessBlobGasAfter(parent, rules.blobs, rules.blobReservePrice);
}
