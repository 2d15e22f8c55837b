// The fork Kestrel runs, described the way EIP-7910 (eth_config) and the blob fee rules need it.
import { crc32 } from 'node:zlib';
import { blobBaseFee as engineBlobBaseFee, blobParams, GAS_PER_BLOB } from '../../evm/handler/fees.ts';

/** Blob parameters of a fork (EIP-7691 for Prague). */
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

/** Prague's blob schedule (EIP-7691); the maximum and the fraction are the engine's. */
export const PRAGUE_BLOBS: BlobSchedule = {
  target: 6,
  max: Number(blobParams('Prague').maxBlobGasPerBlock / GAS_PER_BLOB),
  baseFeeUpdateFraction: blobParams('Prague').updateFraction,
};

function precompileAddress(n: number): Uint8Array {
  const a = new Uint8Array(20);
  a[18] = n >> 8;
  a[19] = n & 0xff;
  return a;
}

/** Prague's precompiles under their EIP-7910 names. */
const PRAGUE_PRECOMPILES: Array<[string, number]> = [
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
];

/**
 * EIP-2124/6122 fork hash: CRC32 of the genesis hash, extended by every fork activated after genesis. Every fork
 * Kestrel runs is active from block 0, and those are skipped, so it is the genesis hash's checksum.
 */
export function forkHash(genesisHash: Uint8Array): Uint8Array {
  const sum = crc32(genesisHash);
  return Uint8Array.of(sum >>> 24, (sum >>> 16) & 0xff, (sum >>> 8) & 0xff, sum & 0xff);
}

/**
 * The fork Kestrel runs. System contracts are empty: Kestrel has no beacon chain, deposits, withdrawals or
 * consolidations, and runs none of Prague's system calls (beacon roots, block-hash history), so none of those
 * contracts exists in its state.
 */
export function currentFork(chainId: bigint, genesisHash: Uint8Array): ForkConfig {
  return {
    activationTime: 0n,
    blobSchedule: PRAGUE_BLOBS,
    chainId,
    forkHash: forkHash(genesisHash),
    precompiles: PRAGUE_PRECOMPILES.map(([name, n]) => [name, precompileAddress(n)]),
    systemContracts: [],
  };
}

/** The blob base fee of a block with this excess blob gas under Prague (1 wei on a chain that never carried a blob). */
export function blobBaseFee(excessBlobGas: bigint): bigint {
  return engineBlobBaseFee(excessBlobGas, 'Prague');
}
