// Transaction bytes to the typed value, once: the strict RLP decoder (canonical sizes, no trailing bytes), then each
// field checked as geth's decoder types it (exact field counts, uint64s of at most 8 bytes, integers without
// leading zeros, 20-byte addresses, 32-byte hashes) and the checks ethereumjs made on decode (signature v and high
// s, EIP-2681's nonce, fee caps within 256 bits, a set-code tx's non-empty list), with geth's messages.
import { createHash } from 'node:crypto';
import { bigintToMinBytes, bytesToBigint, EMPTY_BYTES } from '../bytes.ts';
import { keccak256 } from '../keccak.ts';
import { rlpDecode, rlpEncode, rlpEncodeAfter, RlpError, type RlpItem } from '../rlp.ts';
import type { AccessListItem } from '../callRequest.ts';
import {
  type Authorization,
  BLOB_COMMITMENT_VERSION_KZG,
  type BlobSidecar,
  BYTES_PER_BLOB,
  CELL_PROOFS_PER_BLOB,
  MAX_UINT64,
  SECP256K1_HALF_N,
  type Transaction,
  TxDecodeError,
  type TxType,
} from './types.ts';

/** A decoded transaction with what the bytes gave for free. */
export interface DecodedTx {
  tx: Transaction;
  /** The canonical encoding: the bytes received, or a network-form blob tx's plain form. */
  encoded: Uint8Array;
  /** keccak-256 of `encoded`. */
  hash: Uint8Array;
  /** A blob tx received in its network form: the blobs, commitments and proofs. */
  sidecar?: BlobSidecar;
  /** The RLP items of the tx's list (views into the input), for signingHashOf. */
  fields: RlpItem[];
}

/** geth's struct of each type, for its messages. */
const GO_TYPE: Record<TxType, string> = {
  0: 'types.LegacyTx',
  1: 'types.AccessListTx',
  2: 'types.DynamicFeeTx',
  3: 'types.BlobTx',
  4: 'types.SetCodeTx',
};

/** Field counts of each type's list, signature included. */
const FIELD_COUNT: Record<TxType, number> = { 0: 9, 1: 11, 2: 12, 3: 14, 4: 13 };

function malformed(message: string): TxDecodeError {
  return new TxDecodeError('malformed', message);
}

function invalidSig(): TxDecodeError {
  return new TxDecodeError('invalidSignature', 'invalid transaction v, r, s values');
}

/** Reads fields with geth's error context ("decoding into (types.X).Field"). */
class Reader {
  constructor(private readonly goType: string) {}

  private where(field: string): string {
    return `, decoding into (${this.goType})${field}`;
  }

  bytes(item: RlpItem, goType: string, field: string): Uint8Array {
    if (!(item instanceof Uint8Array))
      throw malformed(`rlp: expected input string or byte for ${goType}${this.where(field)}`);
    return item;
  }

  list(item: RlpItem, goType: string, field: string): RlpItem[] {
    if (item instanceof Uint8Array) throw malformed(`rlp: expected input list for ${goType}${this.where(field)}`);
    return item;
  }

  /** An unsigned integer of at most `maxBytes` bytes without leading zeros. */
  uint(item: RlpItem, maxBytes: number, goType: string, field: string): bigint {
    const b = this.bytes(item, goType, field);
    if (b.length > 0 && b[0] === 0)
      throw malformed(`rlp: non-canonical integer (leading zero bytes) for ${goType}${this.where(field)}`);
    if (b.length > maxBytes) {
      if (maxBytes === 32) throw malformed('rlp: value too large for uint256');
      throw malformed(`rlp: input string too long for ${goType}${this.where(field)}`);
    }
    return b.length === 0 ? 0n : bytesToBigint(b);
  }

  u64(item: RlpItem, field: string): bigint {
    return this.uint(item, 8, 'uint64', field);
  }

  /** A 256-bit integer (geth's *big.Int fields are bounded where its pool bounds them: every one here). */
  u256(item: RlpItem, field: string): bigint {
    return this.uint(
      item,
      32,
      this.goType === 'types.BlobTx' || this.goType === 'types.SetCodeTx' ? '*uint256.Int' : '*big.Int',
      field,
    );
  }

  /** A fee cap: geth's pool refuses one above 256 bits with its own message. */
  fee(item: RlpItem, field: string, what: 'max fee per gas' | 'max priority fee per gas'): bigint {
    const b = this.bytes(item, '*big.Int', field);
    if (b.length > 32 && b[0] !== 0) throw new TxDecodeError('feeTooHigh', `${what} higher than 2^256-1`);
    return this.u256(item, field);
  }

  fixed(item: RlpItem, size: number, goType: string, field: string): Uint8Array {
    const b = this.bytes(item, goType, field);
    if (b.length !== size)
      throw malformed(`rlp: input string too ${b.length > size ? 'long' : 'short'} for ${goType}${this.where(field)}`);
    return b;
  }

  /** A recipient that may be empty (a creation). */
  to(item: RlpItem): Uint8Array | undefined {
    const b = this.bytes(item, '*common.Address', '.To');
    return b.length === 0 ? undefined : this.fixed(b, 20, '*common.Address', '.To');
  }

  accessList(item: RlpItem): AccessListItem[] {
    const entries = this.list(item, 'types.AccessList', '.AccessList');
    const out: AccessListItem[] = new Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const at = `.AccessList[${i}]`;
      const tuple = this.list(entries[i]!, 'types.AccessTuple', at);
      if (tuple.length !== 2) throw countError(tuple.length < 2, 'types.AccessTuple', this.where(at));
      const address = this.fixed(tuple[0]!, 20, 'common.Address', `${at}.Address`);
      const keys = this.list(tuple[1]!, '[]common.Hash', `${at}.StorageKeys`);
      const storageKeys: Uint8Array[] = new Array(keys.length);
      for (let k = 0; k < keys.length; k++)
        storageKeys[k] = this.fixed(keys[k]!, 32, 'common.Hash', `${at}.StorageKeys[${k}]`);
      out[i] = { address, storageKeys };
    }
    return out;
  }

  blobHashes(item: RlpItem): Uint8Array[] {
    const hashes = this.list(item, '[]common.Hash', '.BlobHashes');
    const out = hashes.map((h, i) => this.fixed(h, 32, 'common.Hash', `.BlobHashes[${i}]`));
    // geth's pool (ValidateTransaction) refuses these before anything else looks at them.
    if (out.length === 0) throw malformed('blobless blob transaction');
    out.forEach((h, i) => {
      if (h[0] !== BLOB_COMMITMENT_VERSION_KZG)
        throw malformed(`blob ${i} hash version mismatch (have ${h[0]}, supported ${BLOB_COMMITMENT_VERSION_KZG})`);
    });
    return out;
  }

  authorizations(item: RlpItem): Authorization[] {
    const entries = this.list(item, '[]types.SetCodeAuthorization', '.AuthList');
    if (entries.length === 0) throw malformed('EIP-7702 transaction with empty auth list');
    return entries.map((entry, i) => {
      const at = `.AuthList[${i}]`;
      const a = this.list(entry, 'types.SetCodeAuthorization', at);
      if (a.length !== 6) throw countError(a.length < 6, 'types.SetCodeAuthorization', this.where(at));
      return {
        chainId: this.uint(a[0]!, 32, 'uint256.Int', `${at}.ChainID`),
        address: this.fixed(a[1]!, 20, 'common.Address', `${at}.Address`),
        nonce: this.uint(a[2]!, 8, 'uint64', `${at}.Nonce`),
        yParity: this.uint(a[3]!, 1, 'uint8', `${at}.V`),
        r: this.uint(a[4]!, 32, 'uint256.Int', `${at}.R`),
        s: this.uint(a[5]!, 32, 'uint256.Int', `${at}.S`),
      };
    });
  }
}

function countError(tooFew: boolean, goType: string, where = ''): TxDecodeError {
  return malformed(
    tooFew
      ? `rlp: too few elements for ${goType}${where}`
      : `rlp: input list has too many elements for ${goType}${where}`,
  );
}

/** The strict RLP decode, its refusal as a TxDecodeError with the same (geth's) message. */
function decodeRlp(b: Uint8Array): RlpItem {
  try {
    return rlpDecode(b);
  } catch (e) {
    if (e instanceof RlpError) throw malformed(e.message);
    throw e;
  }
}

/**
 * Decodes a transaction's bytes (a legacy RLP list, or a type byte 1–4 and its list; a blob tx in its plain or
 * network form) into the typed value, its canonical encoding and hash. Throws TxDecodeError with geth's message.
 */
export function decodeTransaction(raw: Uint8Array): DecodedTx {
  if (raw.length > 0 && raw[0]! > 0x7f) return finish(0, decodeRlp(raw), raw);
  if (raw.length <= 1) throw malformed('typed transaction too short');
  const type = raw[0]!;
  if (type < 1 || type > 4) throw new TxDecodeError('unsupportedType', 'transaction type not supported');
  const item = decodeRlp(raw.subarray(1));
  if (type === 3 && Array.isArray(item) && (item.length === 4 || item.length === 5) && Array.isArray(item[0])) {
    return networkBlobTx(item);
  }
  return finish(type as TxType, item, raw);
}

function finish(type: TxType, item: RlpItem, encoded: Uint8Array, sidecar?: BlobSidecar): DecodedTx {
  const goType = GO_TYPE[type];
  if (item instanceof Uint8Array) throw malformed(`rlp: expected input list for ${goType}`);
  const want = FIELD_COUNT[type];
  if (item.length !== want) throw countError(item.length < want, goType);
  const tx = type === 0 ? legacyFields(item) : typedFields(type, item, new Reader(goType));
  const out: DecodedTx = { tx, encoded, hash: keccak256(encoded), fields: item };
  if (sidecar !== undefined) out.sidecar = sidecar;
  return out;
}

/** The signature's r and s as geth and ethereumjs check them on decode: s at most secp256k1n / 2. */
function signature(rd: Reader, item: RlpItem[], n: number): { v: bigint; r: bigint; s: bigint } {
  const v = rd.u256(item[n - 3]!, '.V');
  const r = rd.u256(item[n - 2]!, '.R');
  const s = rd.u256(item[n - 1]!, '.S');
  if (s > SECP256K1_HALF_N) throw invalidSig();
  return { v, r, s };
}

function nonceOf(rd: Reader, item: RlpItem): bigint {
  const nonce = rd.u64(item, '.Nonce');
  // EIP-2681, as geth's pool words it (ethereumjs refused it on decode).
  if (nonce === MAX_UINT64) throw new TxDecodeError('nonceMax', 'nonce has max value');
  return nonce;
}

function legacyFields(f: RlpItem[]): Transaction {
  const rd = new Reader('types.LegacyTx');
  const nonce = nonceOf(rd, f[0]!);
  const gasPrice = rd.fee(f[1]!, '.GasPrice', 'max fee per gas');
  const gasLimit = rd.u64(f[2]!, '.Gas');
  const to = rd.to(f[3]!);
  const value = rd.u256(f[4]!, '.Value');
  const data = rd.bytes(f[5]!, '[]uint8', '.Data');
  const { v, r, s } = signature(rd, f, 9);
  // v is 27 or 28 without EIP-155, else chainId * 2 + 35 or 36.
  // An unsigned tx (v, r and s empty) decodes, as ethereumjs's did; admission refuses it as unprotected, as geth does.
  let chainId: bigint | undefined;
  if (v === 27n || v === 28n || (v === 0n && r === 0n && s === 0n)) chainId = undefined;
  else if (v >= 35n) chainId = (v - 35n) >> 1n;
  else throw invalidSig();
  return {
    type: 0,
    chainId,
    nonce,
    gasPrice,
    maxPriorityFeePerGas: gasPrice,
    maxFeePerGas: gasPrice,
    gasLimit,
    to,
    value,
    data,
    accessList: [],
    maxFeePerBlobGas: 0n,
    blobVersionedHashes: [],
    authorizationList: [],
    v,
    r,
    s,
  };
}

function typedFields(type: TxType, f: RlpItem[], rd: Reader): Transaction {
  const chainId = rd.u256(f[0]!, '.ChainID');
  const nonce = nonceOf(rd, f[1]!);
  let gasPrice: bigint, tip: bigint, feeCap: bigint, i: number;
  if (type === 1) {
    gasPrice = tip = feeCap = rd.fee(f[2]!, '.GasPrice', 'max fee per gas');
    i = 3;
  } else {
    tip = rd.fee(f[2]!, '.GasTipCap', 'max priority fee per gas');
    gasPrice = feeCap = rd.fee(f[3]!, '.GasFeeCap', 'max fee per gas');
    // geth's pool check, which ethereumjs made on decode.
    if (feeCap < tip) throw new TxDecodeError('tipAboveFeeCap', 'max priority fee per gas higher than max fee per gas');
    i = 4;
  }
  const gasLimit = rd.u64(f[i]!, '.Gas');
  // Blob and set-code txs cannot create: their `to` is an address, never empty.
  const to = type >= 3 ? rd.fixed(f[i + 1]!, 20, 'common.Address', '.To') : rd.to(f[i + 1]!);
  const value = rd.u256(f[i + 2]!, '.Value');
  const data = rd.bytes(f[i + 3]!, '[]uint8', '.Data');
  const accessList = rd.accessList(f[i + 4]!);
  let maxFeePerBlobGas = 0n;
  let blobVersionedHashes: Uint8Array[] = [];
  let authorizationList: Authorization[] = [];
  if (type === 3) {
    maxFeePerBlobGas = rd.u256(f[i + 5]!, '.BlobFeeCap');
    blobVersionedHashes = rd.blobHashes(f[i + 6]!);
  } else if (type === 4) {
    authorizationList = rd.authorizations(f[i + 5]!);
  }
  const { v, r, s } = signature(rd, f, f.length);
  if (v > 1n) throw invalidSig();
  return {
    type,
    chainId,
    nonce,
    gasPrice,
    maxPriorityFeePerGas: tip,
    maxFeePerGas: feeCap,
    gasLimit,
    to,
    value,
    data,
    accessList,
    maxFeePerBlobGas,
    blobVersionedHashes,
    authorizationList,
    v,
    r,
    s,
  };
}

/**
 * A blob tx's network form (EIP-4844: [tx, blobs, commitments, proofs]; EIP-7594: [tx, 1, blobs, commitments,
 * cell proofs]): the sidecar's sizes and counts, and each commitment's versioned hash against the tx's. The KZG
 * proofs themselves are not verified here (Kestrel's chain carries no blobs and admission refuses type 3).
 */
function networkBlobTx(item: RlpItem[]): DecodedTx {
  const rd = new Reader('types.BlobTxWithBlobs');
  let version: 0 | 1 = 0;
  let at = 1;
  if (item.length === 5) {
    const v = rd.uint(item[1]!, 1, 'uint8', '.Version');
    if (v !== 1n) throw malformed(`unsupported blob sidecar version ${v}`);
    version = 1;
    at = 2;
  }
  const inner = item[0] as RlpItem[];
  const encoded = rlpEncodeAfter(inner, 1);
  encoded[0] = 3;
  const list = (i: number, field: string, size: number, goType: string): Uint8Array[] =>
    rd.list(item[i]!, `[]${goType}`, field).map((b, k) => rd.fixed(b, size, goType, `${field}[${k}]`));
  const blobs = list(at, '.Blobs', BYTES_PER_BLOB, 'kzg4844.Blob');
  const commitments = list(at + 1, '.Commitments', 48, 'kzg4844.Commitment');
  const proofs = list(at + 2, '.Proofs', 48, 'kzg4844.Proof');
  const decoded = finish(3, inner, encoded, { version, blobs, commitments, proofs });
  const hashes = decoded.tx.blobVersionedHashes;
  if (blobs.length !== hashes.length)
    throw malformed(`invalid number of ${blobs.length} blobs compared to ${hashes.length} blob hashes`);
  if (commitments.length !== hashes.length)
    throw malformed(
      `invalid number of ${commitments.length} blob commitments compared to ${hashes.length} blob hashes`,
    );
  const wantProofs = version === 0 ? hashes.length : hashes.length * CELL_PROOFS_PER_BLOB;
  if (proofs.length !== wantProofs)
    throw malformed(`invalid number of ${proofs.length} blob proofs compared to ${wantProofs} expected`);
  commitments.forEach((c, i) => {
    const h = versionedHash(c);
    if (!h.every((b, k) => b === hashes[i]![k]))
      throw malformed(`blob ${i}: computed hash 0x${hex(h)} mismatches transaction one 0x${hex(hashes[i]!)}`);
  });
  return decoded;
}

/** A KZG commitment's versioned hash: the version byte, then sha256's last 31 bytes. */
export function versionedHash(commitment: Uint8Array): Uint8Array {
  const h = new Uint8Array(createHash('sha256').update(commitment).digest());
  h[0] = BLOB_COMMITMENT_VERSION_KZG;
  return h;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

/**
 * keccak-256 of the message the signature signs, from the decoded items (the received bytes, so nothing is
 * re-encoded from values): a typed tx's type byte and list without v, r, s; a legacy tx's six fields and, under
 * EIP-155, its chain id and two empty strings.
 */
export function signingHashOf(d: DecodedTx): Uint8Array {
  const { tx, fields } = d;
  if (tx.type === 0) {
    const signed = fields.slice(0, 6);
    if (tx.chainId !== undefined) signed.push(bigintToMinBytes(tx.chainId), EMPTY_BYTES, EMPTY_BYTES);
    return keccak256(rlpEncode(signed));
  }
  const msg = rlpEncodeAfter(fields.slice(0, fields.length - 3), 1);
  msg[0] = tx.type;
  return keccak256(msg);
}
