// A transaction's canonical encoding (EIP-2718: a legacy tx is its RLP list, a typed tx its type byte then the RLP
// list), the message its signature signs, and the hashes of both, from the typed value alone.
import { bigintToMinBytes, EMPTY_BYTES } from '../bytes.ts';
import { keccak256 } from '../keccak.ts';
import { rlpEncode, rlpEncodeAfter, type RlpItem } from '../rlp.ts';
import type { Transaction } from './types.ts';

const int = bigintToMinBytes;

function accessListItems(tx: Transaction): RlpItem[] {
  return tx.accessList.map((a) => [a.address, a.storageKeys as RlpItem[]]);
}

/** The fields a signature covers, in the type's order (a legacy tx's six; a typed tx's all but v, r, s). */
export function unsignedFields(tx: Transaction): RlpItem[] {
  const to = tx.to ?? EMPTY_BYTES;
  switch (tx.type) {
    case 0:
      return [int(tx.nonce), int(tx.gasPrice), int(tx.gasLimit), to, int(tx.value), tx.data];
    case 1:
      return [
        int(tx.chainId ?? 0n),
        int(tx.nonce),
        int(tx.gasPrice),
        int(tx.gasLimit),
        to,
        int(tx.value),
        tx.data,
        accessListItems(tx),
      ];
    case 2:
      return [...feeMarketHead(tx, to)];
    case 3:
      return [...feeMarketHead(tx, to), int(tx.maxFeePerBlobGas), tx.blobVersionedHashes as Uint8Array[]];
    case 4:
      return [
        ...feeMarketHead(tx, to),
        tx.authorizationList.map((a) => [int(a.chainId), a.address, int(a.nonce), int(a.yParity), int(a.r), int(a.s)]),
      ];
  }
}

/** The fields types 2, 3 and 4 share, up to the access list. */
function feeMarketHead(tx: Transaction, to: Uint8Array): RlpItem[] {
  return [
    int(tx.chainId ?? 0n),
    int(tx.nonce),
    int(tx.maxPriorityFeePerGas),
    int(tx.maxFeePerGas),
    int(tx.gasLimit),
    to,
    int(tx.value),
    tx.data,
    accessListItems(tx),
  ];
}

/** Every field of the tx's RLP list, the signature last (a legacy tx's body item in a block is this list). */
export function txFields(tx: Transaction): RlpItem[] {
  return [...unsignedFields(tx), int(tx.v), int(tx.r), int(tx.s)];
}

/** The canonical encoding (the bytes its hash and the block's tx trie use; a blob tx's plain form). */
export function encodeTx(tx: Transaction): Uint8Array {
  if (tx.type === 0) return rlpEncode(txFields(tx));
  const out = rlpEncodeAfter(txFields(tx), 1);
  out[0] = tx.type;
  return out;
}

/**
 * The message the signature signs: a typed tx's type byte and unsigned list; a legacy tx's six fields, followed
 * under EIP-155 by its chain id and two empty strings.
 */
export function signingPayload(tx: Transaction): Uint8Array {
  const fields = unsignedFields(tx);
  if (tx.type === 0) {
    if (tx.chainId !== undefined) fields.push(int(tx.chainId), EMPTY_BYTES, EMPTY_BYTES);
    return rlpEncode(fields);
  }
  const out = rlpEncodeAfter(fields, 1);
  out[0] = tx.type;
  return out;
}

/** keccak-256 of signingPayload: what sender recovery takes. */
export function txSigningHash(tx: Transaction): Uint8Array {
  return keccak256(signingPayload(tx));
}

/** The transaction hash: keccak-256 of the canonical encoding. */
export function txHash(tx: Transaction): Uint8Array {
  return keccak256(encodeTx(tx));
}
