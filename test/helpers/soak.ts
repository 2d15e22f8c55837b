// The long soak (issue 30, item 4): one dev node under mixed load — reads (eth_getBalance, eth_call), sends (value
// and ERC20 transfers, receipts checked), eth_getLogs, debug_traceTransaction and WS subscriptions (newHeads, logs)
// — sampled every few seconds for RSS, open fds, per-kind latency and tx counts. Shared by `npm run soak` and the
// short CI variant (test/reliability/soak.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import WebSocket from 'ws';
import {
  balanceOfData,
  compileContracts,
  tokenConstructorArgs,
  transferData,
  TRANSFER_TOPIC,
} from '../../bench/lib/contracts.ts';
import { devAccounts, signLegacy, type Account } from '../../bench/lib/tx.ts';
import { CHAIN_ID } from './accounts.ts';
import { freePort, type KestrelNode, rpc, rpcResult, sleep, startNode, waitForReceipt } from './node.ts';

/** The request kinds whose latency is tracked. */
export const KINDS = ['getBalance', 'call', 'send', 'getLogs', 'trace'] as const;
export type Kind = (typeof KINDS)[number];

/** One sample of the curve. */
export interface SoakSample {
  atSeconds: number;
  rssMiB: number;
  /** The node's V8 heap in use and reserved, and its caches' bytes (kestrel_cache_bytes summed), from its metrics. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  cacheMiB: number;
  fds: number;
  /** p50/p99 in ms over the requests finished since the previous sample (NaN when none). */
  latency: Record<Kind, { n: number; p50: number; p99: number }>;
  sent: number;
  acked: number;
  mined: number;
  head: number;
}

/** What a soak run measured and concluded. */
export interface SoakResult {
  seconds: number;
  samples: SoakSample[];
  /** Index of the reference sample (after 5 minutes, or 20% of a shorter run). */
  refIndex: number;
  sent: number;
  acked: number;
  mined: number;
  /** Acknowledged txs without a successful receipt at the end. */
  lost: string[];
  /** Requests that failed (JSON-RPC error or transport failure). */
  errors: string[];
  /** Blocks a subscription did not see, and other subscription problems. */
  subProblems: string[];
  headsSeen: number;
  logsSeen: number;
  failures: string[];
  node: KestrelNode;
}

/** Options of a soak run. */
export interface SoakOptions {
  seconds: number;
  sampleSeconds: number;
  log?: (line: string) => void;
  /** Extra kestreld flags (e.g. a cache budget, or --metrics to watch the caches). */
  args?: string[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Resident set size of a process in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** Open file descriptors of a process (Linux /proc). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

// p99 drift floor: on a shared 2-core machine a single GC pause or a neighbour's burst moves a p99 by tens of ms,
// so a quarter's p99 may exceed 1.5x the reference quarter's by this much before it counts as drift.
const P99_FLOOR_MS = 50;
const BAND = 0.1;

/** Evaluates the verdict of a finished run; returns the failed checks (empty when it passed). */
export function verdict(r: Omit<SoakResult, 'failures' | 'node'>): string[] {
  const out: string[] = [];
  const ref = r.samples[r.refIndex];
  if (ref === undefined) return ['too few samples for a verdict'];
  for (const s of r.samples.slice(r.refIndex)) {
    if (Math.abs(s.rssMiB - ref.rssMiB) > BAND * ref.rssMiB)
      out.push(`RSS ${s.rssMiB.toFixed(0)} MiB at ${s.atSeconds} s is outside ±10% of ${ref.rssMiB.toFixed(0)} MiB`);
    if (Math.abs(s.fds - ref.fds) > Math.max(BAND * ref.fds, 2))
      out.push(`${s.fds} open fds at ${s.atSeconds} s is outside ±10% of ${ref.fds}`);
  }
  const q = quarters(r.samples);
  for (const k of KINDS) {
    const second = q[1]![k];
    const last = q[3]![k];
    if (last > 1.5 * second + P99_FLOOR_MS)
      out.push(
        `${k}: last-quarter p99 ${last.toFixed(1)} ms > 1.5 x second-quarter ${second.toFixed(1)} ms + ${P99_FLOOR_MS}`,
      );
  }
  if (r.lost.length > 0) out.push(`${r.lost.length} acknowledged txs not mined (first: ${r.lost[0]})`);
  if (r.errors.length > 0) out.push(`${r.errors.length} failed requests (first: ${r.errors[0]})`);
  out.push(...r.subProblems);
  return out;
}

/** The p99 of each kind over each quarter of the run (the median of the quarter's per-sample p99s). */
export function quarters(samples: SoakSample[]): Array<Record<Kind, number>> {
  const n = samples.length;
  return [0, 1, 2, 3].map((qi) => {
    const part = samples.slice(
      Math.floor((qi * n) / 4),
      Math.max(Math.floor(((qi + 1) * n) / 4), Math.floor((qi * n) / 4) + 1),
    );
    const rec = {} as Record<Kind, number>;
    for (const k of KINDS) {
      const p = part
        .map((s) => s.latency[k].p99)
        .filter((v) => !Number.isNaN(v))
        .sort((a, b) => a - b);
      rec[k] = p.length === 0 ? 0 : percentile(p, 50);
    }
    return rec;
  });
}

/** The curve as a fixed-width table (also valid markdown). */
export function curveTable(samples: SoakSample[]): string {
  const head = [
    't (s)',
    'RSS MiB',
    'heap used/total MiB',
    'caches MiB',
    'fds',
    'head',
    'sent',
    'acked',
    'mined',
    ...KINDS.map((k) => `${k} p50/p99 ms`),
  ];
  const rows = samples.map((s) => [
    String(s.atSeconds),
    s.rssMiB.toFixed(0),
    `${s.heapUsedMiB.toFixed(0)}/${s.heapTotalMiB.toFixed(0)}`,
    s.cacheMiB.toFixed(1),
    String(s.fds),
    String(s.head),
    String(s.sent),
    String(s.acked),
    String(s.mined),
    ...KINDS.map((k) => (s.latency[k].n === 0 ? '-' : `${s.latency[k].p50.toFixed(1)}/${s.latency[k].p99.toFixed(1)}`)),
  ]);
  const line = (c: string[]) => `| ${c.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The node's heap (used, total) and its caches' bytes in MiB, read from its Prometheus page. */
async function memoryMetrics(at: string): Promise<Pick<SoakSample, 'heapUsedMiB' | 'heapTotalMiB' | 'cacheMiB'>> {
  const text = await (await fetch(`http://${at}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
  const sum = (re: RegExp) =>
    text
      .split('\n')
      .filter((l) => re.test(l))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0) / 1048576;
  return {
    heapUsedMiB: sum(/^nodejs_heap_size_used_bytes /),
    heapTotalMiB: sum(/^nodejs_heap_size_total_bytes /),
    cacheMiB: sum(/^kestrel_cache_bytes\{/),
  };
}

/** Opens a WS subscription; calls `onEvent` with every notification's result. */
async function subscribe(
  url: string,
  params: unknown[],
  onEvent: (r: any) => void,
  problems: string[],
): Promise<WebSocket> {
  const sock = new WebSocket(url);
  await new Promise<void>((res, rej) => {
    sock.once('open', () => res());
    sock.once('error', rej);
  });
  let closing = false;
  sock.on('error', (e) => problems.push(`subscription ${JSON.stringify(params[0])}: ${e.message}`));
  sock.on('close', (code) => {
    if (!closing) problems.push(`subscription ${JSON.stringify(params[0])} closed by the node (${code})`);
  });
  const origClose = sock.close.bind(sock);
  sock.close = ((...a: Parameters<WebSocket['close']>) => {
    closing = true;
    origClose(...a);
  }) as WebSocket['close'];
  await new Promise<void>((res, rej) => {
    sock.on('message', (d) => {
      const msg = JSON.parse(d.toString());
      if (msg.id === 1) {
        if (typeof msg.result === 'string') res();
        else rej(new Error(`eth_subscribe ${JSON.stringify(params)} failed: ${JSON.stringify(msg)}`));
      } else if (msg.method === 'eth_subscription') onEvent(msg.params.result);
    });
    sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params }));
  });
  return sock;
}

/** Starts a dev node, runs the mixed load for `seconds`, settles, checks. The caller disposes `result.node`. */
export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => {});
  // The node serves its metrics so each sample can say what its heap and caches hold (RSS alone cannot tell live
  // data from a heap V8 has not collected yet).
  const metricsAt = `127.0.0.1:${await freePort()}`;
  const node = await startNode({ args: ['--metrics.address', metricsAt, ...(o.args ?? [])] });
  const pid = node.proc.pid!;
  const url = node.http;
  const accounts = devAccounts(4);
  const [deployer, valueSender, tokenSender] = accounts as [Account, Account, Account, Account];
  const recipient = accounts[3]!.address;

  // The token: every account holds a supply; the ERC20 sender's transfers give the logs subscription its events.
  const code =
    compileContracts().token +
    tokenConstructorArgs(
      accounts.map((a) => a.address),
      10n ** 24n,
    );
  const dep = signLegacy(deployer, BigInt(CHAIN_ID), { nonce: 0, gas: 3_000_000n, to: null, value: 0n, data: code });
  await rpcResult(url, 'eth_sendRawTransaction', [dep.raw]);
  const depReceipt = await waitForReceipt(url, dep.hash, 60_000);
  if (depReceipt.status !== '0x1') throw new Error('token deployment reverted');
  const token = depReceipt.contractAddress as string;

  const latencies: Record<Kind, number[]> = { getBalance: [], call: [], send: [], getLogs: [], trace: [] };
  const errors: string[] = [];
  const subProblems: string[] = [];
  const heads: number[] = [];
  const logTxs = new Set<string>();
  const minedHashes: string[] = [];
  const acked: string[] = [];
  const tokenMined: string[] = [];
  let sent = 0;
  let stopping = false;

  const headsSock = await subscribe(node.ws, ['newHeads'], (h) => heads.push(Number(BigInt(h.number))), subProblems);
  const logsSock = await subscribe(
    node.ws,
    ['logs', { address: token, topics: [TRANSFER_TOPIC] }],
    (l) => logTxs.add(l.transactionHash),
    subProblems,
  );
  const firstHead = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));

  /** Calls and records latency; a JSON-RPC error or transport failure is recorded as an error. */
  const timed = async <T>(kind: Kind, method: string, params: unknown[]): Promise<T | undefined> => {
    const t0 = performance.now();
    try {
      const r = await rpc<T>(url, method, params, { timeoutMs: 30_000 });
      latencies[kind].push(performance.now() - t0);
      if (r.error !== undefined) {
        errors.push(`${method}: ${JSON.stringify(r.error)}`);
        return undefined;
      }
      return r.result as T;
    } catch (e) {
      errors.push(`${method}: ${(e as Error).message}`);
      return undefined;
    }
  };

  // One sender per kind of tx: send, wait for the receipt (checked), next. Sequential keeps the nonce simple and
  // makes "acknowledged" and "mined" exact.
  const sender = async (acct: Account, erc20: boolean): Promise<void> => {
    let nonce = Number(BigInt(await rpcResult<string>(url, 'eth_getTransactionCount', [acct.address, 'pending'])));
    while (!stopping) {
      const tx = signLegacy(acct, BigInt(CHAIN_ID), {
        nonce,
        gas: erc20 ? 100_000n : 21_000n,
        to: erc20 ? token : recipient,
        value: erc20 ? 0n : 1n,
        data: erc20 ? transferData(recipient, 1n) : '0x',
      });
      sent++;
      const hash = await timed<string>('send', 'eth_sendRawTransaction', [tx.raw]);
      if (hash === undefined) {
        await sleep(500);
        continue;
      }
      acked.push(hash);
      nonce++;
      try {
        const rc = await waitForReceipt(url, hash, 60_000);
        if (rc.status !== '0x1') errors.push(`tx ${hash} reverted`);
        minedHashes.push(hash);
        if (erc20) tokenMined.push(hash);
      } catch (e) {
        errors.push(`receipt of ${hash}: ${(e as Error).message}`);
      }
    }
  };

  const reader = async (): Promise<void> => {
    for (let i = 0; !stopping; i++) {
      if (i % 2 === 0) await timed('getBalance', 'eth_getBalance', [accounts[i % 4]!.address, 'latest']);
      else await timed('call', 'eth_call', [{ to: token, data: balanceOfData(accounts[i % 4]!.address) }, 'latest']);
      await sleep(20);
    }
  };

  const logsReader = async (): Promise<void> => {
    while (!stopping) {
      const head = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));
      await timed('getLogs', 'eth_getLogs', [
        {
          address: token,
          topics: [TRANSFER_TOPIC],
          fromBlock: `0x${Math.max(0, head - 100).toString(16)}`,
          toBlock: 'latest',
        },
      ]);
      await sleep(200);
    }
  };

  const tracer = async (): Promise<void> => {
    for (let i = 0; !stopping; i++) {
      const h = minedHashes[minedHashes.length - 1 - (i % Math.max(1, Math.min(50, minedHashes.length)))];
      if (h !== undefined) await timed('trace', 'debug_traceTransaction', [h, {}]);
      await sleep(500);
    }
  };

  const samples: SoakSample[] = [];
  const t0 = Date.now();
  const sample = async (): Promise<void> => {
    const latency = {} as SoakSample['latency'];
    for (const k of KINDS) {
      const v = latencies[k].splice(0).sort((a, b) => a - b);
      latency[k] = { n: v.length, p50: percentile(v, 50), p99: percentile(v, 99) };
    }
    const head = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));
    const m = await memoryMetrics(metricsAt);
    const s: SoakSample = {
      atSeconds: Math.round((Date.now() - t0) / 1000),
      rssMiB: rssMiB(pid),
      ...m,
      fds: openFds(pid),
      latency,
      sent,
      acked: acked.length,
      mined: minedHashes.length,
      head,
    };
    samples.push(s);
    log(
      `t=${s.atSeconds}s rss=${s.rssMiB.toFixed(0)}MiB heap=${s.heapUsedMiB.toFixed(0)}/${s.heapTotalMiB.toFixed(0)}MiB ` +
        `caches=${s.cacheMiB.toFixed(1)}MiB fds=${s.fds} head=${head} sent=${sent} acked=${s.acked} mined=${s.mined} ` +
        KINDS.map((k) => `${k}=${latency[k].p50.toFixed(1)}/${latency[k].p99.toFixed(1)}`).join(' '),
    );
  };

  const loops = [sender(valueSender, false), sender(tokenSender, true), reader(), reader(), logsReader(), tracer()];
  while (Date.now() - t0 < o.seconds * 1000) {
    await sleep(Math.min(o.sampleSeconds * 1000, Math.max(0, o.seconds * 1000 - (Date.now() - t0))));
    await sample();
  }
  stopping = true;
  await Promise.all(loops);

  // Settle: the subscriptions get a last block or two to deliver before their coverage is checked.
  const lastHead = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && (heads.at(-1) ?? -1) < lastHead) await sleep(200);
  await sleep(500);
  headsSock.close();
  logsSock.close();

  // The audit asks 32 receipts at a time: one at a time took 2 minutes after a 10-minute run.
  const lost: string[] = [];
  for (let i = 0; i < acked.length; i += 32) {
    const part = acked.slice(i, i + 32);
    const rcs = await Promise.all(part.map((h) => rpcResult<any>(url, 'eth_getTransactionReceipt', [h])));
    rcs.forEach((rc, j) => {
      if (rc === null || rc.status !== '0x1') lost.push(part[j]!);
    });
  }
  const seen = new Set(heads);
  const missingHeads: number[] = [];
  for (let n = firstHead + 1; n <= lastHead; n++) if (!seen.has(n)) missingHeads.push(n);
  if (missingHeads.length > 0)
    subProblems.push(
      `newHeads missed ${missingHeads.length} of ${lastHead - firstHead} blocks (first ${missingHeads[0]})`,
    );
  if (heads.length !== seen.size) subProblems.push(`newHeads delivered ${heads.length - seen.size} duplicate heads`);
  const missingLogs = tokenMined.filter((h) => !logTxs.has(h));
  if (missingLogs.length > 0)
    subProblems.push(`logs subscription missed ${missingLogs.length} of ${tokenMined.length} ERC20 transfers`);

  const seconds = o.seconds;
  const refAt = Math.min(300, 0.2 * seconds);
  const refIndex = Math.max(
    0,
    samples.findIndex((s) => s.atSeconds >= refAt),
  );
  const base = {
    seconds,
    samples,
    refIndex,
    sent,
    acked: acked.length,
    mined: minedHashes.length,
    lost,
    errors,
    subProblems,
    headsSeen: seen.size,
    logsSeen: logTxs.size,
  };
  return { ...base, failures: verdict(base), node };
}

/** The markdown result of a run. */
export function soakMarkdown(r: SoakResult, command: string, startedIso: string, note: string): string {
  const q = quarters(r.samples);
  const ref = r.samples[r.refIndex];
  return [
    `# Soak, ${startedIso}`,
    '',
    `Command: \`${command}\``,
    '',
    note,
    '',
    `Verdict: **${r.failures.length === 0 ? 'PASS' : 'FAIL'}**`,
    ...r.failures.map((f) => `- ${f}`),
    '',
    `Counts: ${r.sent} sent, ${r.acked} acknowledged, ${r.mined} mined with status 1, ${r.lost.length} lost; ` +
      `${r.errors.length} failed requests; newHeads saw ${r.headsSeen} blocks, logs saw ${r.logsSeen} transfers.`,
    '',
    `Reference (sample at ${ref?.atSeconds ?? '?'} s): RSS ${ref?.rssMiB.toFixed(0)} MiB, ${ref?.fds} fds; ` +
      `band ±10%. p99 per quarter (median of the samples' p99s, ms): ` +
      KINDS.map((k) => `${k} ${q.map((x) => x[k].toFixed(1)).join(' / ')}`).join('; ') +
      `. Drift check: last quarter ≤ 1.5 × second quarter + ${P99_FLOOR_MS} ms.`,
    '',
    curveTable(r.samples),
    '',
  ].join('\n');
}
