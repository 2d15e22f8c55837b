// Consensus encodings of stored records: a block as peers exchange it, and a receipt as the receipts trie holds it.
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import { encodeReceipt } from '@ethereumjs/vm';
import type { BlockRecord, ReceiptRecord } from './records.ts';

/** A transaction as it sits inside a block body: a legacy tx is an RLP list, a typed tx an opaque byte string. */
function bodyItem(tx: TypedTransaction): Uint8Array | Uint8Array[] {
  return tx.type === 0 ? (tx.raw() as Uint8Array[]) : tx.serialize();
}

/** rlp([header, transactions, uncles, withdrawals?]); `withdrawals` are the body's RLP items when there are some. */
export function encodeBlock(b: Pick<BlockRecord, 'header' | 'txs'>, withdrawals: Uint8Array[][] = []): Uint8Array {
  const h = b.header;
  const body: unknown[] = [h.raw(), b.txs.map(bodyItem), []];
  if (h.withdrawalsRoot !== undefined) body.push(withdrawals);
  return RLP.encode(body as never);
}

/** The consensus encoding of a receipt (typed receipts carry their type byte). */
export function encodeReceiptRecord(r: ReceiptRecord): Uint8Array {
  return encodeReceipt(
    {
      status: r.status,
      cumulativeBlockGasUsed: r.cumulativeGasUsed,
      bitvector: r.bloom,
      logs: r.logs.map((l) => [l.address, l.topics, l.data]),
    },
    r.type as never,
  );
}
