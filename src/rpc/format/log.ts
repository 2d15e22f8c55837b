// Log objects of eth_getLogs, eth_getFilterChanges and "logs" notifications, and newHeads headers, in geth's shape.
import type { CheckedTx } from '../../app/app.ts';
import type { BlockRecord } from '../../store/records.ts';
import type { LogEntry } from '../../filters/logQuery.ts';
import type { NotificationFormat } from '../../filters/subscriptions.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import { formatBlock, type Compat } from './block.ts';
import { formatTx } from './tx.ts';

/** Formats a log with its chain position (geth includes blockTimestamp since 1.16). */
export function formatLogEntry(e: LogEntry): Record<string, unknown> {
  return {
    address: bytesToHex(e.log.address),
    topics: e.log.topics.map((t) => bytesToHex(t)),
    data: bytesToHex(e.log.data),
    blockNumber: toQuantity(e.blockNumber),
    transactionHash: bytesToHex(e.txHash),
    transactionIndex: toQuantity(e.txIndex),
    blockHash: bytesToHex(e.blockHash),
    blockTimestamp: toQuantity(e.blockTimestamp),
    logIndex: toQuantity(e.logIndex),
    removed: false,
  };
}

/** Formats a block header as newHeads delivers it (a block object without body fields, as geth's types.Header). */
export function formatHeader(b: BlockRecord, compat: Compat): Record<string, unknown> {
  const out = formatBlock({ ...b, txs: [], txHashes: [], senders: [] }, false, compat);
  for (const k of ['transactions', 'uncles', 'withdrawals', 'size', 'totalDifficulty']) delete out[k];
  return out;
}

/** A pending tx as eth_getFilterChanges and newPendingTransactions show it in full. */
export function formatPendingTx(tx: CheckedTx): Record<string, unknown> {
  return formatTx(tx.tx, tx.sender, tx.hash);
}

/** How subscription notifications render headers, logs and pending txs. */
export function notificationFormat(compat: Compat): NotificationFormat {
  return {
    head: (b) => formatHeader(b, compat),
    log: formatLogEntry,
    pendingTx: (tx, full) => (full ? formatPendingTx(tx) : bytesToHex(tx.hash)),
  };
}
