// The soak's samples and its verdict (issue 30, item 4): RSS and open fds within ±10% of their value at the
// reference sample, no p99 drift, nothing lost, the load really ran. Pure functions of the samples, so
// test/reliability/soakVerdict.test.ts can show each check failing on made-up curves.

/** The request kinds whose latency is tracked. */
export const KINDS = ['getBalance', 'call', 'send', 'getLogs', 'trace'] as const;
export type Kind = (typeof KINDS)[number];

/** One sample of the curve. */
export interface SoakSample {
  atSeconds: number;
  rssMiB: number;
  /**
   * RSS split as /proc reports it: anonymous pages (the heap, malloc's arenas, LevelDB's block cache and memtables)
   * and file-backed pages (the code, and LevelDB's mmapped table files, which the kernel can drop at any time). Shown
   * beside RSS to tell memory the node holds from table pages it touched; the verdict judges RSS.
   */
  rssAnonMiB?: number;
  rssFileMiB?: number;
  /** The node's V8 heap in use and reserved, and its caches' bytes (kestrel_cache_bytes summed), from its metrics. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  /** Memory outside V8's heap that the node's objects hold (Buffers, LevelDB's and native allocations it reports). */
  externalMiB: number;
  cacheMiB: number;
  /** Each cache's MiB (kestrel_cache_bytes by cache), to tell which one is still filling. */
  cacheByName: Record<string, number>;
  /** V8's reserved MiB by heap space (new, old, code, large_object, …), to tell the young generation from the old. */
  heapSpaces: Record<string, number>;
  /** The machine's 1-minute load average (the soak shares its cores with whatever else runs). */
  load1: number;
  /**
   * Median wall ms of a fixed piece of CPU work the soak process ran every 250 ms since the previous sample: how
   * slow the machine was then (other processes' load stretches it the way it stretches the node's answers).
   */
  probeMs: number;
  fds: number;
  /** p50/p99 in ms over the requests finished since the previous sample (NaN when none), and their latencies. */
  latency: Record<Kind, { n: number; p50: number; p99: number; ms: number[] }>;
  sent: number;
  acked: number;
  mined: number;
  head: number;
}

/** What the verdict looks at: a finished run's samples and counts. */
export interface SoakRun {
  seconds: number;
  samples: SoakSample[];
  /** Index of the reference sample (the first at or after the reference time). */
  refIndex: number;
  /** Requests of each kind the node answered (with a result or an error) over the whole run. */
  requests: Record<Kind, number>;
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
  /**
   * How far RSS may stray from the reference, as a fraction (default 0.1, issue 30's ±10% after the first 5 minutes).
   * Only the 5-minute CI run widens it: see test/reliability/soak.test.ts.
   */
  rssBand?: number;
}

/** The value at percentile `p` of an ascending array (NaN when empty). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function median(values: number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

const BAND = 0.1;

/**
 * p99 drift: the median of the second half's window p99s may exceed the median of the second quarter's by this
 * factor (times the machine's slowdown) plus P99_FLOOR_MS. Why windows and medians rather than one p99 over a
 * quarter's requests: on the shared 2-core machine (load 10-16 from other sessions, and in CI a second test file
 * running beside this one) a neighbour's burst stalls the node for a few sampling windows at a time. A 5-minute run
 * measured one 45-s stall at 246-276 s in which every kind's window p99 went to 0.6-2.3 s while the other windows
 * stayed at 0.1-0.5 s; the pooled last-quarter p99 then read 2-4x the second quarter's in two runs of three, with
 * no trend in the p50s. A stall of fewer than half the late windows does not move their median; a node that really
 * slows (a growing structure walked per request) slows every later window and does. What this does not catch: a
 * creep of less than 1.5x (+100 ms) between the second quarter and the second half, which is inside what the
 * windows' medians moved between runs here (±30% with no change to the node).
 */
const P99_FACTOR = 1.5;
const P99_FLOOR_MS = 100;

/**
 * The reference RSS: the median of the reference sample and its two neighbours. RSS swings by 10-30 MiB with the
 * phase of V8's collections (garbage waiting for the next full GC), so a single sample taken at a trough or a peak
 * would shift the whole ±10% band; three samples around the reference time make it the typical value there.
 */
export function referenceRss(samples: SoakSample[], refIndex: number): number {
  return median(samples.slice(Math.max(0, refIndex - 1), refIndex + 2).map((s) => s.rssMiB));
}

/** The reference fd count: the median of the reference sample and its two neighbours, as for RSS. */
export function referenceFds(samples: SoakSample[], refIndex: number): number {
  return median(samples.slice(Math.max(0, refIndex - 1), refIndex + 2).map((s) => s.fds));
}

/** The second quarter's samples (warm-up excluded), the p99 reference windows. */
function referenceWindows(samples: SoakSample[]): SoakSample[] {
  const n = samples.length;
  return samples.slice(Math.floor(n / 4), Math.max(Math.floor(n / 2), Math.floor(n / 4) + 1));
}

/** The second half's samples, the windows judged for drift. */
function lateWindows(samples: SoakSample[]): SoakSample[] {
  return samples.slice(Math.floor(samples.length / 2));
}

/**
 * How much slower the machine was in the second half than in the second quarter (the probe's median wall time, at
 * least 1): neighbours that take the cores stretch every answer, and that is not the node drifting. A node that
 * slows down by itself does not slow the probe, which runs in the soak's own process.
 */
export function machineSlowdown(samples: SoakSample[]): number {
  const ratio =
    median(lateWindows(samples).map((s) => s.probeMs)) / median(referenceWindows(samples).map((s) => s.probeMs));
  return Number.isFinite(ratio) && ratio > 1 ? ratio : 1;
}

/** Per kind: the median window p99 of the reference windows and of the late ones, and the late one's limit. */
export function p99Drift(samples: SoakSample[]): Record<Kind, { ref: number; late: number; limit: number }> {
  const slow = machineSlowdown(samples);
  const out = {} as Record<Kind, { ref: number; late: number; limit: number }>;
  for (const k of KINDS) {
    const p99s = (w: SoakSample[]) => median(w.filter((s) => s.latency[k].n > 0).map((s) => s.latency[k].p99));
    const ref = p99s(referenceWindows(samples));
    out[k] = { ref, late: p99s(lateWindows(samples)), limit: P99_FACTOR * ref * slow + P99_FLOOR_MS };
  }
  return out;
}

/** The drift rule in words, for results. */
export function driftRule(samples: SoakSample[]): string {
  return (
    `median window p99 of the second half ≤ ${P99_FACTOR} × that of the second quarter × the machine's slowdown ` +
    `(${machineSlowdown(samples).toFixed(2)}: the probe's second half / second quarter, at least 1) + ${P99_FLOOR_MS} ms`
  );
}

/** Evaluates the verdict of a finished run; returns the failed checks (empty when it passed). */
export function verdict(r: SoakRun): string[] {
  const out: string[] = [];
  const ref = r.samples[r.refIndex];
  if (ref === undefined || r.samples.length - r.refIndex < 2 || r.samples.length < 4)
    return ['too few samples for a verdict'];
  // A run whose load did not run proves nothing: every kind of request, and the subscriptions, must have been busy.
  for (const k of KINDS) if (r.requests[k] === 0) out.push(`no ${k} request finished`);
  if (r.headsSeen === 0) out.push('the newHeads subscription saw no block');
  if (r.logsSeen === 0) out.push('the logs subscription saw no transfer');
  const refRss = referenceRss(r.samples, r.refIndex);
  const refFds = referenceFds(r.samples, r.refIndex);
  const rssBand = r.rssBand ?? BAND;
  for (const s of r.samples.slice(r.refIndex)) {
    if (Math.abs(s.rssMiB - refRss) > rssBand * refRss)
      out.push(
        `RSS ${s.rssMiB.toFixed(0)} MiB at ${s.atSeconds} s is outside ±${Math.round(rssBand * 100)}% of ` +
          `${refRss.toFixed(0)} MiB`,
      );
    // Strict ±10%: each of the soak's loops holds one connection of its own (soakClient.ts), so the load's sockets
    // are a constant share of the count and need no allowance.
    if (Math.abs(s.fds - refFds) > BAND * refFds)
      out.push(`${s.fds} open fds at ${s.atSeconds} s is outside ±10% of ${refFds}`);
  }
  const slow = machineSlowdown(r.samples);
  for (const [k, d] of Object.entries(p99Drift(r.samples))) {
    if (!Number.isFinite(d.ref) || !Number.isFinite(d.late)) out.push(`${k}: no p99 to compare (no requests)`);
    else if (d.late > d.limit)
      out.push(
        `${k}: second-half median window p99 ${d.late.toFixed(1)} ms > ${P99_FACTOR} x second-quarter ` +
          `${d.ref.toFixed(1)} ms${slow > 1 ? ` x machine slowdown ${slow.toFixed(2)}` : ''} + ${P99_FLOOR_MS}`,
      );
  }
  if (r.lost.length > 0) out.push(`${r.lost.length} acknowledged txs not mined (first: ${r.lost[0]})`);
  if (r.errors.length > 0) out.push(`${r.errors.length} failed requests (first: ${r.errors[0]})`);
  out.push(...r.subProblems);
  return out;
}

/** The p99 of each kind over each quarter of the run's samples (over all the quarter's requests): the p99 curve. */
export function quarters(samples: SoakSample[]): Array<Record<Kind, number>> {
  const n = samples.length;
  return [0, 1, 2, 3].map((qi) => {
    const part = samples.slice(
      Math.floor((qi * n) / 4),
      Math.max(Math.floor(((qi + 1) * n) / 4), Math.floor((qi * n) / 4) + 1),
    );
    const rec = {} as Record<Kind, number>;
    for (const k of KINDS)
      rec[k] = percentile(
        part.flatMap((s) => s.latency[k].ms).sort((a, b) => a - b),
        99,
      );
    return rec;
  });
}
