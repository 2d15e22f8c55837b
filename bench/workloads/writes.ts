// Write workloads: pre-signed plain transfers and ERC20 transfers, end to end until every receipt exists, with each
// sender awaiting its receipt or with a fixed number of transactions in flight over the senders. `npm run bench`'s
// write group is issue 27's target 1 (benchWrites); bench/sendCpu.ts picks from WRITE_KINDS.
import { recipientAddress, transferData } from '../lib/contracts.ts';
import { signLegacy, type Account, type SignedTx } from '../lib/tx.ts';
import type { NodeName } from '../nodes/types.ts';
import type { RowSpec, Sample } from '../report.ts';
import { nonces, waitReceipt, type Chain } from './chain.ts';
import type { SendMode, SendOutcome } from './send.ts';

/** One kind of write workload: which transactions, sent how. */
export interface WriteKind {
  id: string;
  kind: 'transfer' | 'erc20';
  mode: SendMode;
}

/** The write kinds bench/sendCpu.ts and bench/sendInProcess.ts pick from (KIND=<id>). */
export const WRITE_KINDS: WriteKind[] = [
  { id: 'write.transfer.awaited', kind: 'transfer', mode: 'awaited' },
  { id: 'write.erc20.awaited', kind: 'erc20', mode: 'awaited' },
  { id: 'write.transfer.inflight', kind: 'transfer', mode: 'inflight' },
  { id: 'write.erc20.inflight', kind: 'erc20', mode: 'inflight' },
  { id: 'write.transfer.batched', kind: 'transfer', mode: 'batched' },
  { id: 'write.erc20.batched', kind: 'erc20', mode: 'batched' },
];

/** A write workload of `npm run bench`: a kind with its number of transactions. */
export interface WriteWorkload extends WriteKind {
  size: number;
}

/**
 * Senders of the write group, one per transaction in flight: each awaits its receipt before its next send, so 32 are
 * in flight and every sender's nonces reach the node in order. With fewer senders than txs in flight a sender's
 * concurrent sends can arrive out of nonce order, which Hardhat refuses when automining ("Nonce too high") and which
 * only a node that queues them (Kestrel's pool) turns into mined txs: the peers could not mine them all.
 */
export const WRITE_SENDERS = 32;

/** The peers issue 27's target 1 is measured against: Kestrel is to beat the fastest of them at each size. */
export const WRITE_PEERS: readonly NodeName[] = ['anvil', 'anvil-prune', 'hardhat'];

/** The nodes that run the write group: Kestrel and WRITE_PEERS. */
export const WRITE_NODES: readonly NodeName[] = ['kestrel', ...WRITE_PEERS];

/**
 * The write group (issue 27, target 1): value and ERC20 transfers at every size, smallest first, from
 * WRITE_SENDERS senders each awaiting its receipt (32 in flight), each run until every transaction has a receipt.
 */
export function benchWrites(sizes: readonly number[]): WriteWorkload[] {
  return sizes.flatMap((size) =>
    (['transfer', 'erc20'] as const).map((kind) => ({
      id: `write.${kind}.inflight.${size}`,
      kind,
      mode: 'awaited' as const,
      size,
    })),
  );
}

/** Row id of the RSS measured after the write workloads. */
export const RSS_ROW = 'rss.afterWrites';

/** The rows of the write workloads (target: ≥ 1.2× the best of WRITE_PEERS, every tx mined) and of RSS (< 300 MiB). */
export function writeSpecs(counts: { sizes: readonly number[] }): RowSpec[] {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const workloads = benchWrites(counts.sizes);
  return [
    ...workloads.map((w) => ({
      id: w.id,
      label: `${fmt(w.size)} ${w.kind === 'transfer' ? 'transfers' : 'ERC20 transfers'}, ${WRITE_SENDERS} in flight, all mined`,
      unit: 'tx/s',
      better: 'higher' as const,
      target: { kind: 'vsBest' as const, factor: 1.2, peers: WRITE_PEERS },
    })),
    {
      id: RSS_ROW,
      label: `RSS after the ${workloads.length} write workloads in sequence on one process`,
      unit: 'MiB',
      better: 'lower',
      target: { kind: 'max', limit: 300 },
    },
  ];
}

/** Ether each write sender gets when the node did not fund it (ample for 5,000 ERC20 transfers at GAS_PRICE). */
const SENDER_FUNDS = 100n * 10n ** 18n;

/**
 * Funds every sender the node left without balance (nodes prefund the first ten dev accounts) from `funder`, one
 * send after another so the nonces arrive in order, and waits until all are mined. Setup, not timed.
 */
export async function fundSenders(chain: Chain, funder: Account, senders: Account[]): Promise<void> {
  const balances = await Promise.all(
    senders.map(async (a) => BigInt(await chain.client.call<string>('eth_getBalance', [a.address, 'latest']))),
  );
  const poor = senders.filter((_, i) => balances[i]! < SENDER_FUNDS / 2n);
  if (poor.length === 0) return;
  const [nonce] = await nonces(chain, [funder]);
  let last = '';
  for (const [k, a] of poor.entries()) {
    const tx = signLegacy(funder, chain.chainId, {
      nonce: nonce! + k,
      gas: 21_000n,
      to: a.address,
      value: SENDER_FUNDS,
      data: '0x',
    });
    await chain.client.call('eth_sendRawTransaction', [tx.raw]);
    last = tx.hash;
  }
  const r = await waitReceipt(chain, last, 30_000);
  if (r.status !== '0x1') throw new Error(`${chain.node.name}: funding the write senders failed: ${JSON.stringify(r)}`);
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
  w: Pick<WriteKind, 'kind'>,
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

/**
 * A write run as a sample of the write group, where only a run that mined every transaction has a rate. Any other
 * run keeps its failure status and the note says how far it got. A run stopped by the stall or time bound with
 * every send accepted and no receipt failed (a slow or stuck node, not a broken one) also gets `bound`: total over
 * the elapsed time, which a complete run could not have reached, so a peer that did not finish still counts in the
 * best-of at the most it could have done.
 */
export function writeSample(o: SendOutcome): Sample {
  const s = outcomeToSample(o);
  if (s.status === 'ok') return s;
  const note = `${s.note ?? ''} (${o.mined.toLocaleString('en-US')} in ${o.seconds.toFixed(1)} s)`;
  const bound =
    (s.status === 'stalled' || s.status === 'timeout') &&
    o.rejected === 0 &&
    o.unanswered === 0 &&
    o.reverted === 0 &&
    o.seconds > 0
      ? o.total / o.seconds
      : undefined;
  return bound === undefined ? { value: null, status: s.status, note } : { value: null, status: s.status, note, bound };
}
