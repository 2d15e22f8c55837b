// Consensus encodings of stored records: a block as peers exchange it, and a receipt as the receipts trie holds it.
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bigIntToBytes } from '@ethereumjs/util';
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

/**
 * The consensus encoding of a receipt: rlp([status, cumulativeGasUsed, bloom, logs]), with the type byte first for
 * a typed receipt (EIP-2718); byte for byte @ethereumjs/vm's encodeReceipt (a test compares them). Written out
 * because importing that one function from @ethereumjs/vm linked the whole EVM into the startup chunk.
 */
export function encodeReceiptRecord(r: ReceiptRecord): Uint8Array {
  const encoded = RLP.encode([
    r.status === 0 ? new Uint8Array(0) : Uint8Array.of(1),
    bigIntToBytes(r.cumulativeGasUsed),
    r.bloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ]);
  if (r.type === 0) return encoded;
  const typed = new Uint8Array(1 + encoded.length);
  typed[0] = r.type;
  typed.set(encoded, 1);
  return typed;
}
