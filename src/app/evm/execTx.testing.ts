// Tests build signed transactions with @ethereumjs/tx (the oracle) and hand the node Kestrel's typed value.
import type { TypedTransaction } from '@ethereumjs/tx';
import { decodeTransaction } from '../../primitives/tx/decode.ts';
import type { Transaction } from '../../primitives/tx/types.ts';
import type { ExecTx } from './executor.ts';

/** Kestrel's typed value of an ethereumjs transaction (through its encoding, as the node receives it). */
export function txOf(signed: TypedTransaction): Transaction {
  return decodeTransaction(signed.serialize()).tx;
}

/** An executor item of a signed ethereumjs transaction; the sender is recovered by ethereumjs unless given. */
export function execTxOf(signed: TypedTransaction, sender?: Uint8Array): ExecTx {
  const encoded = signed.serialize();
  const d = decodeTransaction(encoded);
  return { tx: d.tx, sender: sender ?? signed.getSenderAddress().bytes, hash: d.hash, encoded };
}
