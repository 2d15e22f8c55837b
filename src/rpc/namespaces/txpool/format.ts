// geth's txpool_ shapes: {pending, queued} maps keyed by checksummed sender and decimal nonce, with the tx object
// (block fields null) or the one-line inspect summary.
import { toChecksumAddress } from '@ethereumjs/util';
import { feeCap } from '../../../app/evm/validate.ts';
import type { PoolTx, SenderTxs } from '../../../mempool/pool.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import { formatTx } from '../../format/tx.ts';

type ByNonce<T> = Record<string, T>;

/** A pooled tx as txpool_content shows it: the RPC transaction with null block fields. */
export function contentTx(t: PoolTx): Record<string, unknown> {
  return formatTx(t.tx, t.sender, t.hash);
}

/**
 * geth's inspect line: "<to>: <value> wei + <gas> gas × <price> wei" ("contract creation: …" for creates); the
 * price is the gas price, or the fee cap of EIP-1559 txs (geth's tx.GasPrice()).
 */
export function inspectTx(t: PoolTx): string {
  const to = t.tx.to ? toChecksumAddress(bytesToHex(t.tx.to)) : 'contract creation';
  return `${to}: ${t.tx.value} wei + ${t.tx.gasLimit} gas × ${feeCap(t.tx)} wei`;
}

function byNonce<T>(txs: PoolTx[], f: (t: PoolTx) => T): ByNonce<T> {
  const out: ByNonce<T> = {};
  for (const t of txs) out[t.tx.nonce.toString()] = f(t);
  return out;
}

/** {pending: {<address>: {<nonce>: f(tx)}}, queued: {…}} over every sender (senders without such txs omitted). */
export function poolMaps<T>(
  senders: SenderTxs[],
  f: (t: PoolTx) => T,
): { pending: Record<string, ByNonce<T>>; queued: Record<string, ByNonce<T>> } {
  const pending: Record<string, ByNonce<T>> = {};
  const queued: Record<string, ByNonce<T>> = {};
  for (const s of senders) {
    const addr = toChecksumAddress(bytesToHex(s.sender));
    if (s.pending.length > 0) pending[addr] = byNonce(s.pending, f);
    if (s.queued.length > 0) queued[addr] = byNonce(s.queued, f);
  }
  return { pending, queued };
}

/** {pending: {<nonce>: tx}, queued: {…}} for one sender (txpool_contentFrom). */
export function senderMaps(s: SenderTxs): {
  pending: ByNonce<Record<string, unknown>>;
  queued: ByNonce<Record<string, unknown>>;
} {
  return { pending: byNonce(s.pending, contentTx), queued: byNonce(s.queued, contentTx) };
}
