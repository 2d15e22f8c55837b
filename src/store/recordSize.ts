// Estimates of what a decoded block or receipt list holds in memory, so the block and receipt caches can be bounded
// in bytes: a block of 500 transactions weighs as much as hundreds of empty ones, and a count bound alone would let a
// run of full blocks hold hundreds of MiB.
import type { BlockRecord, ReceiptRecord } from './records.ts';

/** A decoded header: its fields as bigints and byte arrays, its cached hash and RLP. */
const HEADER_BYTES = 2_048;
/**
 * One ethereumjs transaction object beyond its encoded bytes: its fields as bigints and arrays, the cached hash,
 * sender and serialisation; plus the record's hash and sender arrays.
 */
const TX_OVERHEAD_BYTES = 1_536;
/** A receipt's object, bigints and 256-byte bloom. */
const RECEIPT_BYTES = 640;
/** A log's object and its address array; topics and data add their lengths. */
const LOG_BYTES = 160;
/** One topic's array object beyond its 32 bytes. */
const TOPIC_BYTES = 96;

/** Estimated bytes a decoded block record holds. */
export function blockRecordBytes(b: BlockRecord): number {
  // The encoded size covers the transactions' bytes (their serialisation is kept once decoded).
  return HEADER_BYTES + Number(b.size) + b.txs.length * TX_OVERHEAD_BYTES;
}

/** Estimated bytes a block's decoded receipts hold. */
export function receiptsBytes(rs: readonly ReceiptRecord[]): number {
  let total = 64;
  for (const r of rs) {
    total += RECEIPT_BYTES;
    for (const l of r.logs) total += LOG_BYTES + l.data.byteLength + l.topics.length * TOPIC_BYTES;
  }
  return total;
}
