// Receipt objects in geth's JSON shape (their logs use the same formatter as eth_getLogs).
import type { BlockRecord, ReceiptRecord } from '../../store/records.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import type { Compat } from './block.ts';
import { formatLogEntry } from './log.ts';

/** The block-wide index of the first log of the receipt at `index` (the logs of the receipts before it). */
export function firstLogIndex(receipts: readonly ReceiptRecord[], index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) n += receipts[i]!.logs.length;
  return n;
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
export function formatReceipt(
  b: BlockRecord,
  receipts: ReceiptRecord[],
  index: number,
  firstLog: number,
  compat: Compat,
): Record<string, unknown> {
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
    logs: r.logs.map((log, i) =>
      formatLogEntry({
        log,
        blockNumber: b.number,
        blockHash: b.hash,
        blockTimestamp: b.header.timestamp,
        txHash: b.txHashes[index]!,
        txIndex: index,
        logIndex: firstLog + i,
      }),
    ),
    logsBloom: bytesToHex(r.bloom),
    type: toQuantity(r.type),
    status: toQuantity(r.status),
    effectiveGasPrice: toQuantity(r.effectiveGasPrice),
  };
}

/** Formats all receipts of a block. */
export function formatBlockReceipts(
  b: BlockRecord,
  receipts: ReceiptRecord[],
  compat: Compat,
): Record<string, unknown>[] {
  const first = firstLogIndexes(receipts);
  return receipts.map((_, i) => formatReceipt(b, receipts, i, first[i]!, compat));
}
