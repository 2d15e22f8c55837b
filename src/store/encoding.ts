// The consensus encoding of a stored block, as peers exchange it (a receipt's is app/block.ts' encodeConsensusReceipt).
import { rlpEncode } from '../primitives/rlp.ts';
import { encodeTx, txFields } from '../primitives/tx/encode.ts';
import type { Transaction } from '../primitives/tx/types.ts';
import type { RlpItem } from '../primitives/rlp.ts';
import type { BlockRecord } from './records.ts';

/** A transaction as it sits inside a block body: a legacy tx is an RLP list, a typed tx an opaque byte string. */
function bodyItem(tx: Transaction): Uint8Array | RlpItem[] {
  return tx.type === 0 ? txFields(tx) : encodeTx(tx);
}

/** rlp([header, transactions, uncles, withdrawals?]); `withdrawals` are the body's RLP items when there are some. */
export function encodeBlock(b: Pick<BlockRecord, 'header' | 'txs'>, withdrawals: Uint8Array[][] = []): Uint8Array {
  const h = b.header;
  const body: unknown[] = [h.raw(), b.txs.map(bodyItem), []];
  if (h.withdrawalsRoot !== undefined) body.push(withdrawals);
  return rlpEncode(body as never);
}
