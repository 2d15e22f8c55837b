// Receipt and log objects in geth's JSON shape.
import type { BlockRecord, LogRecord, ReceiptRecord } from '../../app/chain/types.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import type { Compat } from './block.ts';

/** Formats one log with its block-wide index. */
export function formatLog(l: LogRecord, b: BlockRecord, txIndex: number, logIndex: number): Record<string, unknown> {
  return {
    address: bytesToHex(l.address),
    topics: l.topics.map((t) => bytesToHex(t)),
    data: bytesToHex(l.data),
    blockNumber: toQuantity(b.number),
    transactionHash: bytesToHex(b.txHashes[txIndex]!),
    transactionIndex: toQuantity(txIndex),
    blockHash: bytesToHex(b.hash),
    logIndex: toQuantity(logIndex),
    removed: false,
  };
}

/** Block-wide index of the first log of each receipt. */
export function firstLogIndexes(receipts: ReceiptRecord[]): number[] {
  const out: number[] = [];
  let n = 0;
  for (const r of receipts) {
    out.push(n);
    n += r.logs.length;
  }
  return out;
}

/** Formats the receipt of the tx at `index` of block `b`. */
export function formatReceipt(b: BlockRecord, receipts: ReceiptRecord[], index: number, firstLog: number, compat: Compat): Record<string, unknown> {
  const r = receipts[index]!;
  return {
    transactionHash: bytesToHex(b.txHashes[index]!),
    transactionIndex: toQuantity(index),
    blockHash: bytesToHex(b.hash),
    blockNumber: toQuantity(b.number),
    from: bytesToHex(r.from),
    to: r.to ? bytesToHex(r.to) : null,
    cumulativeGasUsed: toQuantity(r.cumulativeGasUsed),
    gasUsed: toQuantity(r.gasUsed),
    contractAddress: r.contractAddress
      ? bytesToHex(r.contractAddress)
      : compat === 'ethermint'
        ? '0x0000000000000000000000000000000000000000'
        : null,
    logs: r.logs.map((l, i) => formatLog(l, b, index, firstLog + i)),
    logsBloom: bytesToHex(r.bloom),
    type: toQuantity(r.type),
    status: toQuantity(r.status),
    effectiveGasPrice: toQuantity(r.effectiveGasPrice),
  };
}

/** Formats all receipts of a block. */
export function formatBlockReceipts(b: BlockRecord, receipts: ReceiptRecord[], compat: Compat): Record<string, unknown>[] {
  const first = firstLogIndexes(receipts);
  return receipts.map((_, i) => formatReceipt(b, receipts, i, first[i]!, compat));
}
