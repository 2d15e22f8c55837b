// Transaction objects in geth's JSON shape (bigint → QUANTITY, bytes → DATA happens only here).
import type { TypedTransaction } from '@ethereumjs/tx';
import { effectiveGasPrice } from '../../app/evm/executor.ts';
import { bytesToHex, toQuantity, type Hex } from '../../primitives/hex.ts';

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
export function formatTx(tx: TypedTransaction, sender: Uint8Array, hash: Uint8Array, placement?: TxPlacement): Json {
  const t = tx as unknown as Record<string, unknown>;
  const out: Json = {
    blockHash: placement ? bytesToHex(placement.blockHash) : null,
    blockNumber: placement ? toQuantity(placement.blockNumber) : null,
    blockTimestamp: placement ? toQuantity(placement.timestamp) : null,
    from: bytesToHex(sender),
    gas: toQuantity(tx.gasLimit),
    gasPrice: toQuantity(
      tx.type >= 2
        ? placement?.baseFee !== undefined
          ? effectiveGasPrice(tx, placement.baseFee)
          : (t.maxFeePerGas as bigint)
        : (t.gasPrice as bigint),
    ),
  };
  if (tx.type >= 2) {
    out.maxFeePerGas = toQuantity(t.maxFeePerGas as bigint);
    out.maxPriorityFeePerGas = toQuantity(t.maxPriorityFeePerGas as bigint);
  }
  out.hash = bytesToHex(hash);
  out.input = bytesToHex(tx.data);
  out.nonce = toQuantity(tx.nonce);
  out.to = tx.to ? bytesToHex(tx.to.bytes) : null;
  out.transactionIndex = placement ? toQuantity(placement.index) : null;
  out.value = toQuantity(tx.value);
  out.type = toQuantity(tx.type);
  if (tx.type >= 1) {
    out.accessList = ((t.accessList as Array<[Uint8Array, Uint8Array[]]>) ?? []).map(([a, keys]) => ({
      address: bytesToHex(a),
      storageKeys: keys.map((k) => bytesToHex(k)),
    }));
  }
  if (tx.type === 4) {
    out.authorizationList = ((t.authorizationList as Uint8Array[][]) ?? []).map((a) => ({
      chainId: quantityOf(a[0]!),
      address: bytesToHex(a[1]!),
      nonce: quantityOf(a[2]!),
      yParity: quantityOf(a[3]!),
      r: quantityOf(a[4]!),
      s: quantityOf(a[5]!),
    }));
  }
  const chainId = (t.common as { chainId(): bigint }).chainId();
  if (tx.type >= 1 || ((t.v as bigint | undefined) ?? 0n) >= 35n) out.chainId = toQuantity(chainId);
  // An unsigned tx (eth_fillTransaction) shows zeros, as geth does.
  const v = (t.v as bigint | undefined) ?? 0n;
  out.v = toQuantity(v);
  out.r = toQuantity((t.r as bigint | undefined) ?? 0n);
  out.s = toQuantity((t.s as bigint | undefined) ?? 0n);
  if (tx.type >= 1) out.yParity = toQuantity(v);
  return out;
}

function quantityOf(b: Uint8Array): Hex {
  return b.length === 0 ? '0x0' : toQuantity(BigInt(bytesToHex(b)));
}
