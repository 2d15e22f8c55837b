// The long soak (issue 30, item 4): one dev node under mixed load — reads (eth_getBalance, eth_call), sends (value
// and ERC20 transfers, receipts checked), eth_getLogs, debug_traceTransaction and WS subscriptions (newHeads, logs)
// — sampled every few seconds for RSS, open fds, per-kind latency and tx counts. Run by `npm run soak`
// (test/bench/soak.ts); the verdict is unit-tested in test/reliability/soakVerdict.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
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
import { freePort, type KestrelNode, rpcResult, sleep, startNode, waitFor, waitForReceipt } from './node.ts';
import { type SoakConnection, soakConnection } from './soakClient.ts';
import {
  driftRule,
  KINDS,
  type Kind,
  p99Drift,
  percentile,
  quarters,
  referenceFds,
  referenceRss,
  type SoakRun,
  type SoakSample,
  verdict,
} from './soakVerdict.ts';

export { KINDS, type SoakSample } from './soakVerdict.ts';

/**
 * The soaked node's cache budget (MiB): the smallest the node accepts, documented ([cache] budget-mb) as the bound
 * of its cache memory. Under this load the default 1 GiB budget would still be filling hours in (the trie-node cache
 * gains ~1 KB a block of nodes the head has since replaced, LevelDB's block cache follows the growing database), so
 * RSS would rise by the caches' fill, not by a leak; with 64 MiB the trie share (16 MiB) fills in about 20 minutes
 * and the other caches within the first five.
 */
export const SOAK_BUDGET_MB = 64;
/** The kestreld flags of the soaked node (recorded in every result). */
export const SOAK_NODE_ARGS = [`--cache.budget-mb=${SOAK_BUDGET_MB}`];

/**
 * The offered load: each loop starts an iteration at most once per interval (ms), so a run does the same work on a
 * fast machine as on a slow one. Without it the loops ran as fast as the node answered, and a CI machine that
 * answered 4x faster than this one grew the database, the caches and V8's heap 4x faster in the same five minutes,
 * which moved RSS by the work done rather than by a leak. Per 5 minutes: 4,800 sends (16 a second, about what the
 * slowest closed-loop run here managed), 15,000 balance reads and calls, 1,200 getLogs, 600 traces.
 */
export const SOAK_INTERVALS_MS = { send: 125, read: 40, getLogs: 250, trace: 500 } as const;

/** What a soak run measured and concluded. */
export interface SoakResult extends SoakRun {
  /** The verdict's failed checks (empty when it passed). */
  failures: string[];
  node: KestrelNode;
}

/** Options of a soak run. */
export interface SoakOptions {
  seconds: number;
  sampleSeconds: number;
  log?: (line: string) => void;
  /** Extra kestreld flags (e.g. a cache budget). */
  args?: string[];
  /**
   * When the reference sample is taken: RSS and fds must stay within ±10% of it from then on. Default: 300 s (issue
   * 30: "after the first 5 minutes") for runs of 10 minutes or more, 40% of the run for shorter ones.
   */
  refSeconds?: number;
  /** RSS band as a fraction of the reference (SoakRun.rssBand; default 0.1). */
  rssBand?: number;
  /** Empty blocks mined before the load starts (default SOAK_PREMINE_BLOCKS). */
  premineBlocks?: number;
}

/**
 * Blocks mined before the load: one past EIP-2935's history window (8,191 block hashes in a system contract's
 * storage ring). A younger chain's state grows by one storage slot a block until the ring is full, and the node's
 * caches, heap and LevelDB grow with it; at the soak's ~15 blocks a second that lasted until minute ~9, past the
 * reference sample. A chain older than ~2.3 hours of 1-second blocks is past it, so the soak starts there.
 */
export const SOAK_PREMINE_BLOCKS = 8_192;

/** The reference time of a run of `seconds` when none is given (see SoakOptions.refSeconds). */
export function defaultRefSeconds(seconds: number): number {
  return seconds >= 600 ? 300 : 0.4 * seconds;
}

/** Resident set size of a process in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** A process's resident anonymous and file-backed MiB (Linux /proc; undefined where the kernel does not say). */
export function rssSplitMiB(pid: number): { rssAnonMiB?: number; rssFileMiB?: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => {
    const m = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
    return m ? Number(m[1]) / 1024 : undefined;
  };
  const anon = kb('RssAnon');
  const file = kb('RssFile');
  return { ...(anon === undefined ? {} : { rssAnonMiB: anon }), ...(file === undefined ? {} : { rssFileMiB: file }) };
}

/** Open file descriptors of a process (Linux /proc). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The curve as a fixed-width table (also valid markdown). */
export function curveTable(samples: SoakSample[]): string {
  const head = [
    't (s)',
    'RSS MiB',
    'anon/file MiB',
    'heap used/total MiB',
    'caches MiB (trie nodes)',
    'fds',
    'head',
    'sent',
    'acked',
    'mined',
    ...KINDS.map((k) => `${k} p50/p99 ms`),
    'load',
    'probe ms',
  ];
  const rows = samples.map((s) => [
    String(s.atSeconds),
    s.rssMiB.toFixed(0),
    `${s.rssAnonMiB?.toFixed(0) ?? '-'}/${s.rssFileMiB?.toFixed(0) ?? '-'}`,
    `${s.heapUsedMiB.toFixed(0)}/${s.heapTotalMiB.toFixed(0)}`,
    `${s.cacheMiB.toFixed(1)} (${(s.cacheByName.trie_nodes ?? 0).toFixed(1)})`,
    String(s.fds),
    String(s.head),
    String(s.sent),
    String(s.acked),
    String(s.mined),
    ...KINDS.map((k) => (s.latency[k].n === 0 ? '-' : `${s.latency[k].p50.toFixed(1)}/${s.latency[k].p99.toFixed(1)}`)),
    s.load1.toFixed(1),
    Number.isFinite(s.probeMs) ? s.probeMs.toFixed(1) : '-',
  ]);
  const line = (c: string[]) => `| ${c.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The node's heap (used, total) and its caches' bytes in MiB, read from its Prometheus page. */
async function memoryMetrics(
  conn: SoakConnection,
): Promise<
  Pick<SoakSample, 'heapUsedMiB' | 'heapTotalMiB' | 'externalMiB' | 'cacheMiB' | 'cacheByName' | 'heapSpaces'>
> {
  const text = await conn.get('/metrics');
  const sum = (re: RegExp) =>
    text
      .split('\n')
      .filter((l) => re.test(l))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0) / 1048576;
  const cacheByName: Record<string, number> = {};
  for (const m of text.matchAll(/^kestrel_cache_bytes\{cache="([^"]+)"\} (\S+)$/gm))
    cacheByName[m[1]!] = Number(m[2]) / 1048576;
  const heapSpaces: Record<string, number> = {};
  for (const m of text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([^"]+)"\} (\S+)$/gm))
    heapSpaces[m[1]!] = Number(m[2]) / 1048576;
  return {
    heapSpaces,
    heapUsedMiB: sum(/^nodejs_heap_size_used_bytes /),
    heapTotalMiB: sum(/^nodejs_heap_size_total_bytes /),
    externalMiB: sum(/^nodejs_external_memory_bytes /),
    cacheMiB: sum(/^kestrel_cache_bytes\{/),
    cacheByName,
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
  const premine = o.premineBlocks ?? SOAK_PREMINE_BLOCKS;
  // Interval 0: the blocks keep the wall clock's timestamp instead of running the chain's clock hours ahead.
  if (premine > 0) await rpcResult(url, 'hardhat_mine', [`0x${premine.toString(16)}`, '0x0'], { timeoutMs: 600_000 });
  log(`mined ${premine} empty blocks before the load`);

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
  const requests: Record<Kind, number> = { getBalance: 0, call: 0, send: 0, getLogs: 0, trace: 0 };
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

  // Each loop has its own connection (soakClient.ts), so the load holds a constant number of the node's fds.
  const connections: SoakConnection[] = [];
  const connect = (to: string): SoakConnection => {
    const c = soakConnection(to);
    connections.push(c);
    return c;
  };

  /** Calls and records latency; a JSON-RPC error or transport failure is recorded as an error. */
  const timed = async <T>(c: SoakConnection, kind: Kind, method: string, params: unknown[]): Promise<T | undefined> => {
    const t0 = performance.now();
    try {
      const r = await c.rpc<T>(method, params, 30_000);
      latencies[kind].push(performance.now() - t0);
      requests[kind]++;
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

  /** Waits until `interval` ms after the previous iteration's start (not after its end): a fixed offered rate. */
  const pacer = (interval: number) => {
    let next = performance.now();
    return async (): Promise<void> => {
      next = Math.max(next + interval, performance.now());
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
    };
  };

  // One sender per kind of tx: send, wait for the receipt (checked), next. Sequential keeps the nonce simple and
  // makes "acknowledged" and "mined" exact.
  const sender = async (acct: Account, erc20: boolean): Promise<void> => {
    const c = connect(url);
    let nonce = Number(BigInt(await c.result<string>('eth_getTransactionCount', [acct.address, 'pending'])));
    const pace = pacer(SOAK_INTERVALS_MS.send);
    while (!stopping) {
      const tx = signLegacy(acct, BigInt(CHAIN_ID), {
        nonce,
        gas: erc20 ? 100_000n : 21_000n,
        to: erc20 ? token : recipient,
        value: erc20 ? 0n : 1n,
        data: erc20 ? transferData(recipient, 1n) : '0x',
      });
      sent++;
      const hash = await timed<string>(c, 'send', 'eth_sendRawTransaction', [tx.raw]);
      if (hash === undefined) {
        await sleep(500);
        continue;
      }
      acked.push(hash);
      nonce++;
      try {
        const rc = await waitFor(
          `receipt of ${hash}`,
          () => c.result<any>('eth_getTransactionReceipt', [hash]),
          60_000,
        );
        if (rc.status !== '0x1') errors.push(`tx ${hash} reverted`);
        minedHashes.push(hash);
        if (erc20) tokenMined.push(hash);
      } catch (e) {
        errors.push(`receipt of ${hash}: ${(e as Error).message}`);
      }
      await pace();
    }
  };

  const reader = async (): Promise<void> => {
    const c = connect(url);
    const pace = pacer(SOAK_INTERVALS_MS.read);
    for (let i = 0; !stopping; i++) {
      if (i % 2 === 0) await timed(c, 'getBalance', 'eth_getBalance', [accounts[i % 4]!.address, 'latest']);
      else await timed(c, 'call', 'eth_call', [{ to: token, data: balanceOfData(accounts[i % 4]!.address) }, 'latest']);
      await pace();
    }
  };

  // The head comes from the newHeads subscription, not a request: an eth_blockNumber that timed out while a
  // neighbour stalled the node would reject outside timed() and end the whole run instead of counting as a failure.
  const logsReader = async (): Promise<void> => {
    const c = connect(url);
    const pace = pacer(SOAK_INTERVALS_MS.getLogs);
    while (!stopping) {
      const head = heads.at(-1) ?? firstHead;
      await timed(c, 'getLogs', 'eth_getLogs', [
        {
          address: token,
          topics: [TRANSFER_TOPIC],
          fromBlock: `0x${Math.max(0, head - 100).toString(16)}`,
          toBlock: 'latest',
        },
      ]);
      await pace();
    }
  };

  const tracer = async (): Promise<void> => {
    const c = connect(url);
    const pace = pacer(SOAK_INTERVALS_MS.trace);
    for (let i = 0; !stopping; i++) {
      const h = minedHashes[minedHashes.length - 1 - (i % Math.max(1, Math.min(50, minedHashes.length)))];
      if (h !== undefined) await timed(c, 'trace', 'debug_traceTransaction', [h, {}]);
      await pace();
    }
  };

  const samples: SoakSample[] = [];
  const metricsConn = connect(`http://${metricsAt}`);
  const t0 = Date.now();
  const sample = async (): Promise<void> => {
    const latency = {} as SoakSample['latency'];
    for (const k of KINDS) {
      const v = latencies[k].splice(0).sort((a, b) => a - b);
      latency[k] = { n: v.length, p50: percentile(v, 50), p99: percentile(v, 99), ms: v };
    }
    const head = heads.at(-1) ?? firstHead; // as the logs reader's, from the subscription
    const m = await memoryMetrics(metricsConn);
    const s: SoakSample = {
      atSeconds: Math.round((Date.now() - t0) / 1000),
      rssMiB: rssMiB(pid),
      ...rssSplitMiB(pid),
      ...m,
      fds: openFds(pid),
      latency,
      sent,
      acked: acked.length,
      mined: minedHashes.length,
      head,
      load1: loadavg()[0]!,
      probeMs: percentile(
        probes.splice(0).sort((a, b) => a - b),
        50,
      ),
    };
    samples.push(s);
    log(
      `t=${s.atSeconds}s rss=${s.rssMiB.toFixed(0)}MiB (anon ${s.rssAnonMiB?.toFixed(0)}, file ${s.rssFileMiB?.toFixed(0)}) heap=${s.heapUsedMiB.toFixed(0)}/${s.heapTotalMiB.toFixed(0)}MiB ` +
        `(${Object.entries(s.heapSpaces)
          .filter(([, v]) => v >= 1)
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(', ')}) ext=${s.externalMiB.toFixed(0)}MiB caches=${s.cacheMiB.toFixed(1)}MiB ` +
        `(${Object.entries(s.cacheByName)
          .filter(([, v]) => v >= 0.5)
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(', ')}) fds=${s.fds} head=${head} sent=${sent} acked=${s.acked} mined=${s.mined} ` +
        KINDS.map((k) => `${k}=${latency[k].p50.toFixed(1)}/${latency[k].p99.toFixed(1)}`).join(' ') +
        ` load=${s.load1.toFixed(1)} probe=${s.probeMs.toFixed(1)}ms`,
    );
  };

  // The machine-speed probe (SoakSample.probeMs): a few ms of arithmetic (~3 ms on this machine under load).
  const probes: number[] = [];
  const probe = setInterval(() => {
    const t = performance.now();
    let x = 0;
    for (let i = 0; i < 200_000; i++) x = (x + i * 7) % 1_000_003;
    if (x >= 0) probes.push(performance.now() - t);
  }, 250);
  const loops = [sender(valueSender, false), sender(tokenSender, true), reader(), reader(), logsReader(), tracer()];
  while (Date.now() - t0 < o.seconds * 1000) {
    await sleep(Math.min(o.sampleSeconds * 1000, Math.max(0, o.seconds * 1000 - (Date.now() - t0))));
    await sample();
  }
  stopping = true;
  clearInterval(probe);
  await Promise.all(loops);
  for (const c of connections) c.close();

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
  const refAt = o.refSeconds ?? defaultRefSeconds(seconds);
  const refIndex = Math.max(
    0,
    samples.findIndex((s) => s.atSeconds >= refAt),
  );
  const base = {
    seconds,
    samples,
    refIndex,
    requests,
    sent,
    acked: acked.length,
    mined: minedHashes.length,
    lost,
    errors,
    subProblems,
    headsSeen: seen.size,
    logsSeen: logTxs.size,
    ...(o.rssBand === undefined ? {} : { rssBand: o.rssBand }),
  };
  return { ...base, failures: verdict(base), node };
}

/** The markdown result of a run. */
export function soakMarkdown(r: SoakResult, command: string, startedIso: string, flags: string, note: string): string {
  const q = quarters(r.samples);
  const drift = p99Drift(r.samples);
  const ref = r.samples[r.refIndex];
  return [
    `# Soak, ${startedIso}`,
    '',
    `Command: \`${command}\``,
    '',
    flags,
    '',
    note,
    '',
    `Verdict: **${r.failures.length === 0 ? 'PASS' : 'FAIL'}**`,
    ...r.failures.map((f) => `- ${f}`),
    '',
    `Counts: ${r.sent} sent, ${r.acked} acknowledged, ${r.mined} mined with status 1, ${r.lost.length} lost; ` +
      `${r.errors.length} failed requests; newHeads saw ${r.headsSeen} blocks, logs saw ${r.logsSeen} transfers. ` +
      `Requests: ${KINDS.map((k) => `${k} ${r.requests[k]}`).join(', ')}.`,
    '',
    `Reference (sample at ${ref?.atSeconds ?? '?'} s): RSS ${ref === undefined ? '?' : referenceRss(r.samples, r.refIndex).toFixed(0)} MiB ` +
      `(median of it and its two neighbours), ${referenceFds(r.samples, r.refIndex)} fds (likewise); ` +
      `band ±10%. p99 per quarter (over all its requests, ms): ` +
      KINDS.map((k) => `${k} ${q.map((x) => x[k].toFixed(1)).join(' / ')}`).join('; ') +
      `. Drift check (${driftRule(r.samples)}), ms: ` +
      KINDS.map(
        (k) => `${k} ${drift[k].ref.toFixed(1)} -> ${drift[k].late.toFixed(1)} (limit ${drift[k].limit.toFixed(1)})`,
      ).join('; ') +
      '.',
    '',
    curveTable(r.samples),
    '',
  ].join('\n');
}
