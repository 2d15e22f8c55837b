// A signed transaction as one plain typed value (EIP-2718's five types), shared by every layer above the engine: the
// decoder (decode.ts) makes it once from the bytes received, the encoder (encode.ts) makes its bytes and hashes.
import type { AccessListItem } from '../callRequest.ts';

/** The transaction types Kestrel decodes: legacy, EIP-2930, EIP-1559, EIP-4844 (blobs) and EIP-7702 (set code). */
export type TxType = 0 | 1 | 2 | 3 | 4;

/** An EIP-7702 authorization tuple. */
export interface Authorization {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** An EIP-4844 transaction's network-form sidecar (what a pooled blob tx carries beside the tx itself). */
export interface BlobSidecar {
  /** 0 for EIP-4844's form (one proof per blob), 1 for EIP-7594's (cell proofs). */
  version: 0 | 1;
  blobs: Uint8Array[];
  commitments: Uint8Array[];
  proofs: Uint8Array[];
}

/**
 * A transaction's fields, every type in one shape (fields a type lacks are zero or empty) so a reader never asks
 * which class it holds. The fee fields follow geth's accessors: a legacy or 2930 tx's gasPrice is also its fee and
 * tip cap; a 1559-style tx's gasPrice is its fee cap.
 */
export interface Transaction {
  readonly type: TxType;
  /** The chain the signature is bound to; undefined only for a legacy tx signed without EIP-155. */
  readonly chainId: bigint | undefined;
  readonly nonce: bigint;
  readonly gasPrice: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly gasLimit: bigint;
  /** Undefined for a contract creation. */
  readonly to: Uint8Array | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: readonly AccessListItem[];
  readonly maxFeePerBlobGas: bigint;
  readonly blobVersionedHashes: readonly Uint8Array[];
  readonly authorizationList: readonly Authorization[];
  /** Legacy: the signature's v as encoded (27/28 or EIP-155's); typed: the y parity. Zero when unsigned. */
  readonly v: bigint;
  readonly r: bigint;
  readonly s: bigint;
}

/** Why transaction bytes were refused (typed, so callers map them without matching on text). */
export type TxDecodeErrorKind =
  'malformed' | 'unsupportedType' | 'invalidSignature' | 'nonceMax' | 'feeTooHigh' | 'tipAboveFeeCap';

/** Transaction bytes that do not decode; the message is geth's for the same input. */
export class TxDecodeError extends Error {
  constructor(
    readonly kind: TxDecodeErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'TxDecodeError';
  }
}

/** secp256k1's group order n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** secp256k1n / 2: a larger s is refused since Homestead (EIP-2). */
export const SECP256K1_HALF_N = SECP256K1_N >> 1n;

/** The largest uint64 (EIP-2681: a nonce may not reach it). */
export const MAX_UINT64 = (1n << 64n) - 1n;

/** The version byte of a KZG commitment's versioned hash (EIP-4844). */
export const BLOB_COMMITMENT_VERSION_KZG = 0x01;

/** A blob's size in bytes (4096 field elements of 32 bytes). */
export const BYTES_PER_BLOB = 131072;

/** EIP-7594: cell proofs per blob in a version-1 sidecar. */
export const CELL_PROOFS_PER_BLOB = 128;
