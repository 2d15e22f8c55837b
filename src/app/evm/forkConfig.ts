// The fork a chain runs, described the way EIP-7910 (eth_config) and the blob fee rules need it.
import { crc32 } from 'node:zlib';
import {
  blobBaseFee as engineBlobBaseFee,
  type BlobParent,
  type Fork,
  forkRules,
  HISTORY_STORAGE_ADDRESS,
  nextExcessBlobGas,
} from '../../evm/index.ts';

/** Blob parameters of a fork as eth_config reports them (EIP-7691 for Prague; Osaka keeps them). */
export interface BlobSchedule {
  target: number;
  max: number;
  baseFeeUpdateFraction: bigint;
}

/** One fork's configuration as eth_config reports it. */
export interface ForkConfig {
  /** Kestrel runs its fork from genesis. */
  activationTime: bigint;
  blobSchedule: BlobSchedule;
  chainId: bigint;
  /** EIP-6122 FORK_HASH. */
  forkHash: Uint8Array;
  /** Precompile names (EIP-7910's) → addresses. */
  precompiles: Array<[string, Uint8Array]>;
  /** System contract names → addresses. */
  systemContracts: Array<[string, Uint8Array]>;
}

/** The fork's blob schedule (the engine's). */
export function blobScheduleOf(fork: Fork): BlobSchedule {
  const b = forkRules(fork).blobs;
  return { target: b.target, max: b.max, baseFeeUpdateFraction: b.updateFraction };
}

function precompileAddress(n: number): Uint8Array {
  return precompileAddressOf(BigInt(n));
}

/** A 160-bit address as 20 bytes. */
function precompileAddressOf(address: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(address.toString(16).padStart(40, '0'), 'hex'));
}

/** Every precompile under its EIP-7910 name; a fork has those up to its last contiguous one, and its extra one. */
const PRECOMPILE_NAMES: Array<[string, number]> = [
  ['ECREC', 1],
  ['SHA256', 2],
  ['RIPEMD160', 3],
  ['ID', 4],
  ['MODEXP', 5],
  ['BN254_ADD', 6],
  ['BN254_MUL', 7],
  ['BN254_PAIRING', 8],
  ['BLAKE2F', 9],
  ['KZG_POINT_EVALUATION', 0x0a],
  ['BLS12_G1ADD', 0x0b],
  ['BLS12_G1MSM', 0x0c],
  ['BLS12_G2ADD', 0x0d],
  ['BLS12_G2MSM', 0x0e],
  ['BLS12_PAIRING_CHECK', 0x0f],
  ['BLS12_MAP_FP_TO_G1', 0x10],
  ['BLS12_MAP_FP2_TO_G2', 0x11],
  ['P256VERIFY', 0x100],
];

/** The fork's precompiles under their EIP-7910 names. */
export function precompileNames(fork: Fork): Array<[string, Uint8Array]> {
  const rules = forkRules(fork);
  return PRECOMPILE_NAMES.filter(
    ([, n]) => BigInt(n) <= rules.lastPrecompile || BigInt(n) === rules.extraPrecompile,
  ).map(([name, n]) => [name, precompileAddress(n)]);
}

/**
 * EIP-2124/6122 fork hash: CRC32 of the genesis hash, extended by every fork activated after genesis. Every fork
 * Kestrel runs is active from block 0, and those are skipped, so it is the genesis hash's checksum.
 */
export function forkHash(genesisHash: Uint8Array): Uint8Array {
  const sum = crc32(genesisHash);
  return Uint8Array.of(sum >>> 24, (sum >>> 16) & 0xff, (sum >>> 8) & 0xff, sum & 0xff);
}

/**
 * The fork a chain runs. Of the system contracts only EIP-2935's history contract is named (from Prague): Kestrel
 * has no beacon chain, deposits, withdrawals or consolidations, so it makes no beacon-root call and reads no request
 * contract (see the README).
 */
export function currentFork(chainId: bigint, genesisHash: Uint8Array, fork: Fork): ForkConfig {
  return {
    activationTime: 0n,
    blobSchedule: blobScheduleOf(fork),
    chainId,
    forkHash: forkHash(genesisHash),
    precompiles: precompileNames(fork),
    systemContracts: forkRules(fork).historyStorage
      ? [['HISTORY_STORAGE_ADDRESS', precompileAddressOf(HISTORY_STORAGE_ADDRESS)]]
      : [],
  };
}

/** The blob base fee of a block with this excess blob gas (1 wei on a chain that never carried a blob). */
export function blobBaseFee(excessBlobGas: bigint, fork: Fork): bigint {
  return engineBlobBaseFee(excessBlobGas, fork);
}

/** The blob base fee of the block after `parent` (EIP-7918's reserve price included on Osaka). */
export function nextBlobBaseFee(parent: BlobParent, fork: Fork): bigint {
  return engineBlobBaseFee(nextExcessBlobGas(parent, fork), fork);
}
