// What each fork the engine runs changes, as data: the handler, the interpreter and the precompiles ask for a
// rule here rather than compare fork names, so a fork that only moves parameters (a blob schedule) is a new row.
import type { Address, Fork } from './types.ts';

/** EIP-4844 blob parameters of a fork, in blobs per block (EIP-7691 raised them for Prague; Osaka keeps them). */
export interface BlobSchedule {
  target: number;
  max: number;
  updateFraction: bigint;
}

/** The rules that differ between the forks the engine runs. */
export interface ForkRules {
  readonly name: Fork;
  /** EIP-7702 set-code transactions (type 4) and their authorizations. */
  readonly setCode: boolean;
  /** EIP-7623: a transaction pays at least its calldata floor. */
  readonly calldataFloor: boolean;
  /** The last of the contiguous precompiles from 0x01 (every precompile is warm in every transaction, EIP-2929). */
  readonly lastPrecompile: Address;
  /** A precompile outside that run (EIP-7951's P256VERIFY at 0x100), 0n when the fork has none. */
  readonly extraPrecompile: Address;
  /** EIP-7825: the largest gas limit a transaction may carry; 0n when uncapped. */
  readonly txGasLimitCap: bigint;
  /** EIP-7823's input bounds and EIP-7883's pricing of MODEXP (else EIP-2565's). */
  readonly modexpOsaka: boolean;
  readonly blobs: BlobSchedule;
  /** EIP-7594: the most blobs one transaction may carry (0: only the block's limit bounds it). */
  readonly maxBlobsPerTx: number;
  /** EIP-7918: the excess blob gas update honours a reserve price tied to the execution base fee. */
  readonly blobReservePrice: boolean;
  /** EIP-7934: the RLP-encoded block's size cap, for the block builder above the engine (0: none). */
  readonly maxRlpBlockSize: number;
  /** EIP-2935: each block first stores its parent's hash in the history contract (a system call). */
  readonly historyStorage: boolean;
}

const CANCUN: ForkRules = {
  name: 'Cancun',
  setCode: false,
  calldataFloor: false,
  lastPrecompile: 0x0an,
  extraPrecompile: 0n,
  txGasLimitCap: 0n,
  modexpOsaka: false,
  blobs: { target: 3, max: 6, updateFraction: 3338477n },
  maxBlobsPerTx: 0,
  blobReservePrice: false,
  maxRlpBlockSize: 0,
  historyStorage: false,
};

const PRAGUE: ForkRules = {
  ...CANCUN,
  name: 'Prague',
  setCode: true,
  calldataFloor: true,
  lastPrecompile: 0x11n,
  blobs: { target: 6, max: 9, updateFraction: 5007716n },
  historyStorage: true,
};

const OSAKA: ForkRules = {
  ...PRAGUE,
  name: 'Osaka',
  extraPrecompile: 0x100n,
  txGasLimitCap: 1n << 24n,
  modexpOsaka: true,
  maxBlobsPerTx: 6,
  blobReservePrice: true,
  // MAX_BLOCK_SIZE (10 MiB) less SAFETY_MARGIN (2 MiB).
  maxRlpBlockSize: 8_388_608,
};

/** Every fork's rules. */
export const FORK_RULES: Readonly<Record<Fork, ForkRules>> = { Cancun: CANCUN, Prague: PRAGUE, Osaka: OSAKA };

/** The forks the engine runs, oldest first. */
export const FORKS: readonly Fork[] = ['Cancun', 'Prague', 'Osaka'];

/** The rules of `fork`. */
export function forkRules(fork: Fork): ForkRules {
  return FORK_RULES[fork];
}

/**
 * The highest address of a built-in precompile in any fork the engine runs (Osaka's P256VERIFY at 0x100): at or
 * below it an address is the engine's precompile or none; a stateful precompile the node adds lives above it.
 */
export const LAST_PRECOMPILE: Address = FORKS.map((f) => FORK_RULES[f])
  .flatMap((r) => [r.lastPrecompile, r.extraPrecompile])
  .reduce((a, b) => (a > b ? a : b));
