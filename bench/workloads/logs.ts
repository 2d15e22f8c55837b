// Log workloads: fill a LogSource contract with Transfer events over many blocks, then time eth_getLogs for the
// whole range (address + topic) and for one recipient's events (a selective topic), and the selective query again
// once the chain is padded with empty blocks where the node has an RPC for that.
import { emitManyData, recipientTopic, TRANSFER_TOPIC } from '../lib/contracts.ts';
import { RpcClient } from '../lib/rpc.ts';
import type { Account } from '../lib/tx.ts';
import type { RowSpec, Sample } from '../report.ts';
import { deploy, type Chain } from './chain.ts';
import { sendAll } from './send.ts';
import { outcomeToSample, presign } from './writes.ts';

/** Row ids of the log workloads. */
export const LOG_ROWS = {
  all: 'logs.all',
  selective: 'logs.selective',
  padded: 'logs.selectivePadded',
  fill: 'logs.fill',
} as const;

const RECIPIENTS = 100;
// Anvil's anvil_mine slows down as its chain grows (1,000 blocks: ~1.5 s at first, over a minute past 7,000 on a
// loaded machine), so padding goes in chunks under a deadline and the report says how far it got.
const PAD_CHUNK = 1_000;
const PAD_WARMUP_QUERIES = 5;

/** The rows of the log workloads (target: latency ≤ the best peer's). */
export function logSpecs(events: number, padBlocks: number): RowSpec[] {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const lat = { unit: 'ms', better: 'lower' as const, target: { kind: 'vsBest' as const, factor: 1 } };
  return [
    { id: LOG_ROWS.fill, label: `emitting ${fmt(events)} Transfer events (setup)`, unit: 'tx/s', better: 'higher' },
    { id: LOG_ROWS.all, label: `eth_getLogs address+topic, all ${fmt(events)} logs`, ...lat },
    {
      id: LOG_ROWS.selective,
      label: `eth_getLogs one recipient (${fmt(events / RECIPIENTS)} logs), same range`,
      ...lat,
    },
    { id: LOG_ROWS.padded, label: `eth_getLogs one recipient, chain padded to ${fmt(padBlocks)} blocks`, ...lat },
  ];
}

/** Times a query `reps` times (median kept) and checks it returns `expected` logs (null: any count). */
async function timeQuery(client: RpcClient, filter: object, expected: number | null, reps: number): Promise<Sample> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    let logs: unknown[];
    try {
      logs = await client.call<unknown[]>('eth_getLogs', [filter]);
    } catch (e) {
      return { value: null, status: 'error', note: (e as Error).message.slice(0, 200) };
    }
    times.push(performance.now() - t0);
    if (expected !== null && logs.length !== expected)
      return { value: null, status: 'error', note: `returned ${logs.length} logs, expected ${expected}` };
  }
  times.sort((a, b) => a - b);
  return { value: times[times.length >> 1]!, status: 'ok' };
}

/** Parameters of one log workload run. */
export interface LogRun {
  events: number;
  eventsPerTx: number;
  reps: number;
  stallMs: number;
  maxMs: number;
  /** Chain height to pad to; 0 skips the padded query in this run. */
  padBlocks: number;
  /** Bound on the time spent padding. */
  padDeadlineMs: number;
}

/** Runs the log workloads on a fresh chain; `deployer` is senders[0]. */
export async function runLogs(
  chain: Chain,
  code: string,
  senders: Account[],
  p: LogRun,
  log: (s: string) => void,
): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  const source = await deploy(chain, senders[0]!, code);
  const txCount = Math.ceil(p.events / p.eventsPerTx);
  const txs = await presign(chain, senders, txCount, (i) => ({
    to: source,
    data: emitManyData(p.eventsPerTx, i * p.eventsPerTx),
    gas: 400_000n,
    value: 0n,
  }));
  const fill = await sendAll(chain.node.url, txs, {
    mode: 'awaited',
    inflight: 1,
    stallMs: p.stallMs,
    maxMs: p.maxMs,
    requestTimeoutMs: 10_000,
  });
  const fillSample = outcomeToSample(fill);
  const height = Number(await chain.client.call<string>('eth_blockNumber'));
  fillSample.note = [`${txCount} txs over ${height} blocks`, fillSample.note].filter(Boolean).join('; ');
  out.set(LOG_ROWS.fill, fillSample);
  log(`  fill: ${fill.mined}/${fill.total} txs in ${fill.seconds.toFixed(1)} s, height ${height}`);
  if (fillSample.status !== 'ok' && fillSample.status !== 'timeout') {
    for (const id of [LOG_ROWS.all, LOG_ROWS.selective, LOG_ROWS.padded])
      out.set(id, { value: null, status: 'skipped', note: 'the events could not be emitted' });
    return out;
  }
  // Query what was emitted (all of it unless the fill hit its time bound; the row notes then say so).
  const events = fill.mined * p.eventsPerTx;
  // Which senders' txs made it is arbitrary after a partial fill, so one recipient's count is then unknown.
  const perRecipient = fill.mined === txCount ? events / RECIPIENTS : null;
  const whole = { fromBlock: '0x0', toBlock: 'latest' };
  const one = [TRANSFER_TOPIC, null, recipientTopic(7)];
  out.set(
    LOG_ROWS.all,
    await timeQuery(chain.client, { ...whole, address: source, topics: [TRANSFER_TOPIC] }, events, p.reps),
  );
  out.set(LOG_ROWS.selective, await timeQuery(chain.client, { ...whole, topics: one }, perRecipient, p.reps));
  log(
    `  getLogs all: ${out.get(LOG_ROWS.all)!.value?.toFixed(1)} ms, selective: ${out.get(LOG_ROWS.selective)!.value?.toFixed(1)} ms`,
  );

  if (p.padBlocks === 0) {
    out.set(LOG_ROWS.padded, { value: null, status: 'skipped', note: 'padded only in the first run' });
  } else if (!chain.node.mineEmpty) {
    out.set(LOG_ROWS.padded, {
      value: null,
      status: 'unsupported',
      note: chain.node.mineUnsupportedReason ?? 'no RPC to mine empty blocks',
    });
  } else {
    const t0 = performance.now();
    let h = height;
    while (h < p.padBlocks && performance.now() - t0 < p.padDeadlineMs) {
      await chain.node.mineEmpty(Math.min(PAD_CHUNK, p.padBlocks - h));
      h = Number(await chain.client.call<string>('eth_blockNumber'));
    }
    log(`  padded to ${h} blocks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // Untimed queries first, for every node alike: padding may have restarted the process (Kestrel's does), and
    // a cold process would otherwise be timed against warm ones.
    for (let i = 0; i < PAD_WARMUP_QUERIES; i++)
      await chain.client.call('eth_getLogs', [{ ...whole, topics: one }]).catch(() => undefined);
    const s = await timeQuery(chain.client, { ...whole, topics: one }, perRecipient, p.reps);
    if (h < p.padBlocks) {
      s.status = s.status === 'ok' ? 'error' : s.status;
      s.note = `padding reached only ${h.toLocaleString('en-US')} blocks within ${p.padDeadlineMs / 1000} s (figure over those blocks)`;
    }
    out.set(LOG_ROWS.padded, s);
  }
  return out;
}
