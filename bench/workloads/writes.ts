// Write workloads: pre-signed plain transfers and ERC20 transfers from ten senders, end to end until every receipt
// exists, with each sender awaiting its receipt or with a fixed number of transactions in flight.
import { recipientAddress, transferData } from '../lib/contracts.ts';
import { signLegacy, type Account, type SignedTx } from '../lib/tx.ts';
import type { RowSpec, Sample } from '../report.ts';
import { nonces, type Chain } from './chain.ts';
import type { SendMode, SendOutcome } from './send.ts';

/** One write workload: which transactions, sent how. */
export interface WriteKind {
  id: string;
  kind: 'transfer' | 'erc20';
  mode: SendMode;
}

/** The four write workloads, in the order they run (awaited first: a peer that stalls under load goes last). */
export const WRITE_KINDS: WriteKind[] = [
  { id: 'write.transfer.awaited', kind: 'transfer', mode: 'awaited' },
  { id: 'write.erc20.awaited', kind: 'erc20', mode: 'awaited' },
  { id: 'write.transfer.inflight', kind: 'transfer', mode: 'inflight' },
  { id: 'write.erc20.inflight', kind: 'erc20', mode: 'inflight' },
];

/** Row id of the RSS measured after the write workloads. */
export const RSS_ROW = 'rss.afterWrites';

/** The rows of the write workloads (target: ≥ 1.2× the best peer with every tx mined) and of RSS (< 300 MiB). */
export function writeSpecs(counts: { transfers: number; erc20: number; inflight: number; senders: number }): RowSpec[] {
  const fmt = (n: number) => n.toLocaleString('en-US');
  return [
    ...WRITE_KINDS.map((w) => ({
      id: w.id,
      label: `${w.kind === 'transfer' ? `${fmt(counts.transfers)} transfers` : `${fmt(counts.erc20)} ERC20 transfers`}, ${w.mode === 'awaited' ? `${counts.senders} senders awaiting receipts` : `${counts.inflight} in flight`}`,
      unit: 'tx/s',
      better: 'higher' as const,
      target: { kind: 'vsBest' as const, factor: 1.2 },
    })),
    {
      id: RSS_ROW,
      label: 'RSS after the four write workloads on one process',
      unit: 'MiB',
      better: 'lower',
      target: { kind: 'max', limit: 300 },
    },
  ];
}

/** Signs `total` transactions spread evenly over the senders, starting at each sender's current nonce. */
export async function presign(
  chain: Chain,
  senders: Account[],
  total: number,
  make: (globalIndex: number) => { to: string; data: string; gas: bigint; value: bigint },
): Promise<SignedTx[][]> {
  const start = await nonces(chain, senders);
  const per = Math.ceil(total / senders.length);
  return senders.map((acct, s) => {
    const txs: SignedTx[] = [];
    for (let k = 0; k < per && s * per + k < total; k++) {
      const f = make(s * per + k);
      txs.push(signLegacy(acct, chain.chainId, { nonce: start[s]! + k, ...f }));
    }
    return txs;
  });
}

/** The transactions of a write workload. */
export function writeTxs(
  chain: Chain,
  w: WriteKind,
  senders: Account[],
  total: number,
  token: string,
): Promise<SignedTx[][]> {
  return w.kind === 'transfer'
    ? presign(chain, senders, total, (i) => ({ to: recipientAddress(i), data: '0x', gas: 21_000n, value: 1n }))
    : presign(chain, senders, total, (i) => ({
        to: token,
        data: transferData(recipientAddress(i), 1n),
        gas: 100_000n,
        value: 0n,
      }));
}

/** A send outcome as a sample: transactions per second, ok only when every transaction was mined successfully. */
export function outcomeToSample(o: SendOutcome): Sample {
  const value = o.seconds > 0 && o.mined > 0 ? o.mined / o.seconds : null;
  const parts: string[] = [];
  if (o.mined < o.total) parts.push(`${o.mined.toLocaleString('en-US')}/${o.total.toLocaleString('en-US')} mined`);
  if (o.rejected > 0) parts.push(`rejected ${o.rejected}`);
  if (o.unanswered > 0) parts.push(`${o.unanswered} sends unanswered`);
  if (o.reverted > 0) parts.push(`reverted ${o.reverted}`);
  if (o.stalled) parts.push('no new receipt within the stall bound');
  if (o.timedOut) parts.push('stopped at the time bound with receipts still arriving');
  if (o.errors.length > 0) parts.push(`errors: ${o.errors.map((e) => JSON.stringify(e)).join(', ')}`);
  // A failure outranks the time bound: a peer that rejected or hung some sends is never the best peer.
  const status = o.stalled
    ? 'stalled'
    : o.rejected > 0
      ? 'rejected'
      : o.unanswered > 0
        ? 'hung'
        : o.timedOut
          ? 'timeout'
          : o.reverted > 0 || o.mined < o.total
            ? 'error'
            : 'ok';
  return parts.length > 0 ? { value, status, note: parts.join('; ') } : { value, status };
}
