// Transaction objects in geth's JSON shape (bigint → QUANTITY, bytes → DATA happens only here).
import type { Transaction } from '../../primitives/tx/types.ts';
import { effectiveGasPrice } from '../../app/evm/executor.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';

/** Where a transaction sits, when it is mined. */
export interface TxPlacement {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
  timestamp: bigint;
  baseFee?: bigint;
}

type Json = Record<string, unknown>;

/** Formats a transaction; `placement` undefined means pending (block fields null). */
export function formatTx(tx: Transaction, sender: Uint8Array, hash: Uint8Array, placement?: TxPlacement): Json {
  const out: Json = {
    blockHash: placement ? bytesToHex(placement.blockHash) : null,
    blockNumber: placement ? toQuantity(placement.blockNumber) : null,
    blockTimestamp: placement ? toQuantity(placement.timestamp) : null,
    from: bytesToHex(sender),
    gas: toQuantity(tx.gasLimit),
    gasPrice: toQuantity(
      tx.type >= 2 && placement?.baseFee !== undefined ? effectiveGasPrice(tx, placement.baseFee) : tx.gasPrice,
    ),
  };
  if (tx.type >= 2) {
    out.maxFeePerGas = toQuantity(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas);
  }
  if (tx.type === 3) out.maxFeePerBlobGas = toQuantity(tx.maxFeePerBlobGas);
  out.hash = bytesToHex(hash);
  out.input = bytesToHex(tx.data);
  out.nonce = toQuantity(tx.nonce);
  out.to = tx.to ? bytesToHex(tx.to) : null;
  out.transactionIndex = placement ? toQuantity(placement.index) : null;
  out.value = toQuantity(tx.value);
  out.type = toQuantity(tx.type);
  if (tx.type >= 1) {
    out.accessList = tx.accessList.map((a) => ({
      address: bytesToHex(a.address),
      storageKeys: a.storageKeys.map((k) => bytesToHex(k)),
    }));
  }
  if (tx.type === 3) out.blobVersionedHashes = tx.blobVersionedHashes.map((h) => bytesToHex(h));
  if (tx.type === 4) {
    out.authorizationList = tx.authorizationList.map((a) => ({
      chainId: toQuantity(a.chainId),
      address: bytesToHex(a.address),
      nonce: toQuantity(a.nonce),
      yParity: toQuantity(a.yParity),
      r: toQuantity(a.r),
      s: toQuantity(a.s),
    }));
  }
  if (tx.chainId !== undefined) out.chainId = toQuantity(tx.chainId);
  // An unsigned tx (eth_fillTransaction) shows zeros, as geth does.
  out.v = toQuantity(tx.v);
  out.r = toQuantity(tx.r);
  out.s = toQuantity(tx.s);
  if (tx.type >= 1) out.yParity = toQuantity(tx.v);
  return out;
}
