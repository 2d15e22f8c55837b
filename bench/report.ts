// The bench's results model and its presentation: per workload, each node's figure (median over runs), Kestrel's
// ratio to each peer and to the best peer, and whether the issue's target is met. Ratios are "times better":
// above 1 means Kestrel is better, whether the unit is a rate (higher is better) or a latency/size (lower is better).
import { NODE_NAMES, type NodeName } from './nodes/types.ts';

/** How one measurement ended. */
export type Status = 'ok' | 'timeout' | 'stalled' | 'rejected' | 'hung' | 'error' | 'unsupported' | 'skipped';

/** One run's measurement of one workload on one node. */
export interface Sample {
  value: number | null;
  status: Status;
  note?: string;
  /**
   * For a run that did not finish (no value): a figure a finished run could not have beaten, e.g. a write run's
   * transactions over the time it was given. A peer without a complete run is compared at this figure.
   */
  bound?: number;
}

/** The figure of one workload on one node over all runs. */
export interface Figure extends Sample {
  samples: Sample[];
}

/** Which direction is better for a unit. */
export type Better = 'higher' | 'lower';

/** The issue's target for a workload; a vsBest target names its peers when not every peer counts. */
export type Target =
  | { kind: 'vsBest'; factor: number; peers?: readonly NodeName[] }
  | { kind: 'max'; limit: number }
  | { kind: 'min'; limit: number };

/** A workload's identity and target. */
export interface RowSpec {
  id: string;
  label: string;
  unit: string;
  better: Better;
  target?: Target;
}

/** A workload with every node's figure. */
export interface Row extends RowSpec {
  figures: Partial<Record<NodeName, Figure>>;
}

/** A target verdict. */
export type Verdict = 'met' | 'missed' | 'n/a';

/** Median of a non-empty list (mean of the middle two for even lengths). */
export function median(xs: number[]): number {
  if (xs.length === 0) throw new Error('median of an empty list');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Folds the runs of one workload on one node: the median when every run was ok, else the first failure kept visible. */
export function aggregate(all: Sample[]): Figure {
  // A run that skipped the workload (e.g. the padded query, done only in the first run) says nothing about it.
  const measured = all.filter((s) => s.status !== 'skipped');
  if (measured.length === 0)
    return all.length > 0 ? { ...all[0]!, samples: all } : { value: null, status: 'skipped', samples: all };
  const samples = measured;
  const values = samples.map((s) => s.value).filter((v): v is number => v !== null && Number.isFinite(v));
  const value = values.length > 0 ? median(values) : null;
  const bad = samples.filter((s) => s.status !== 'ok');
  if (bad.length === 0) return { value, status: 'ok', samples: all };
  const first = bad[0]!;
  const note = `${first.status} in ${bad.length}/${samples.length} run${samples.length > 1 ? 's' : ''}${first.note ? `: ${first.note}` : ''}`;
  return { value, status: first.status, note, samples: all };
}

/** Kestrel's figure relative to a peer's ("times better"); null when either figure is missing. */
export function ratio(kestrel: number | null, peer: number | null, better: Better): number | null {
  if (kestrel === null || peer === null || !(kestrel > 0) || !(peer > 0)) return null;
  return better === 'higher' ? kestrel / peer : peer / kestrel;
}

const usable = (f: Figure | undefined): f is Figure & { value: number } =>
  f !== undefined && f.status === 'ok' && f.value !== null;

/** A peer's figure as the best-of compares it; `bounded` when a run that did not finish contributes its bound. */
export interface PeerFigure {
  value: number;
  bounded: boolean;
}

/**
 * A peer's figure for comparisons: its value when every run was ok; otherwise the median over its runs of each
 * run's rate (ok), bound (a run that did not finish: the most it could have done) or rate so far (an older
 * results file's timed-out run). A peer whose runs failed otherwise (rejected, hung, reverted) has none.
 */
export function peerFigure(f: Figure | undefined): PeerFigure | null {
  if (f === undefined) return null;
  if (usable(f)) return { value: f.value, bounded: false };
  const xs: number[] = [];
  let bounded = false;
  for (const s of f.samples) {
    if (s.status === 'ok' && s.value !== null) xs.push(s.value);
    else if (s.bound !== undefined) {
      xs.push(s.bound);
      bounded = true;
    } else if (s.status === 'timeout' && s.value !== null) xs.push(s.value);
  }
  return xs.length > 0 ? { value: median(xs), bounded } : null;
}

/** The peers a row compares Kestrel with: its target's peers, else every peer. */
function peersOf(row: RowSpec): readonly NodeName[] {
  return row.target?.kind === 'vsBest' && row.target.peers
    ? row.target.peers
    : NODE_NAMES.filter((n) => n !== 'kestrel');
}

/** The best of a row's peers (see peerFigure); with a bound it is an upper estimate, so Kestrel's ratio a lower one. */
export function bestPeer(row: Row): ({ name: NodeName } & PeerFigure) | null {
  let best: ({ name: NodeName } & PeerFigure) | null = null;
  for (const name of peersOf(row)) {
    const f = peerFigure(row.figures[name]);
    if (f === null) continue;
    if (best === null || (row.better === 'higher' ? f.value > best.value : f.value < best.value)) best = { name, ...f };
  }
  return best;
}

/** Whether Kestrel meets the row's target. A Kestrel figure that is not ok (stalled, rejected…) misses it. */
export function verdict(row: Row): Verdict {
  if (!row.target) return 'n/a';
  const k = row.figures.kestrel;
  if (k === undefined || k.status === 'skipped' || k.status === 'unsupported') return 'n/a';
  if (!usable(k)) return 'missed';
  if (row.target.kind === 'max') return k.value < row.target.limit ? 'met' : 'missed';
  if (row.target.kind === 'min') return k.value >= row.target.limit ? 'met' : 'missed';
  const best = bestPeer(row);
  if (best === null) return 'n/a';
  const r = ratio(k.value, best.value, row.better);
  return r !== null && r >= row.target.factor - 1e-9 ? 'met' : 'missed';
}

/** The target as text, e.g. "≥ 1.2× best peer" or "< 500 ms". */
export function targetText(row: RowSpec): string {
  if (!row.target) return '';
  if (row.target.kind === 'max') return `< ${row.target.limit} ${row.unit}`;
  if (row.target.kind === 'min') return `≥ ${row.target.limit} ${row.unit}`;
  const of = row.target.peers ? `best of ${row.target.peers.join(', ')}` : 'best peer';
  return row.target.factor === 1 ? `${row.better === 'lower' ? '≤' : '≥'} ${of}` : `≥ ${row.target.factor}× ${of}`;
}

/** A figure's value for a table cell: thousands separators, one decimal below 100. */
export function formatNumber(v: number): string {
  if (v >= 100) return Math.round(v).toLocaleString('en-US');
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/**
 * A figure as a table cell: the value, with the failure status when the figure is not ok; a peer compared at a
 * bound (peerFigure) shows it as "≤ bound (status)", never as a rate.
 */
export function formatFigure(f: Figure | undefined, peer = false): string {
  if (f === undefined) return '–';
  if (f.status === 'ok') return f.value === null ? '' : formatNumber(f.value);
  const p = peer ? peerFigure(f) : null;
  if (p?.bounded) return `≤ ${formatNumber(p.value)} (${f.status})`;
  const v = f.value === null ? '' : formatNumber(f.value);
  return v === '' ? f.status : `${v} (${f.status})`;
}

/** A ratio as a table cell; against a bound it is a lower bound ("≥"). */
export function formatRatio(r: number | null, bounded = false): string {
  return r === null ? '–' : `${bounded ? '≥ ' : ''}${r.toFixed(2)}×`;
}

/** The Markdown table of a run plus the notes of every figure that is not plainly ok. */
export function formatTable(rows: Row[], nodes: readonly NodeName[]): string {
  const peers = nodes.filter((n) => n !== 'kestrel');
  const header = ['workload', 'unit', ...nodes, ...peers.map((p) => `K/${p}`), 'K/best', 'target', 'verdict'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  const notes: string[] = [];
  for (const row of rows) {
    const k = row.figures.kestrel?.value ?? null;
    const best = bestPeer(row);
    const cells = [
      row.label,
      row.unit,
      ...nodes.map((n) => formatFigure(row.figures[n], n !== 'kestrel')),
      ...peers.map((p) => {
        const f = peerFigure(row.figures[p]);
        return formatRatio(f ? ratio(k, f.value, row.better) : null, f?.bounded);
      }),
      best ? `${formatRatio(ratio(k, best.value, row.better), best.bounded)} (${best.name})` : '–',
      targetText(row),
      row.target ? verdict(row) : '',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
    for (const n of nodes) {
      const f = row.figures[n];
      if (f?.note) notes.push(`- ${row.label} — ${n}: ${f.note}`);
    }
  }
  return [...lines, ...(notes.length > 0 ? ['', 'Notes:', ...notes] : [])].join('\n');
}

/** The rows as plain JSON, with each row's ratios and verdict computed. */
export function rowsToJson(rows: Row[], nodes: readonly NodeName[]): unknown[] {
  return rows.map((row) => {
    const k = row.figures.kestrel?.value ?? null;
    const best = bestPeer(row);
    const ratios: Record<string, number | null> = {};
    for (const p of nodes) {
      if (p === 'kestrel') continue;
      const f = peerFigure(row.figures[p]);
      ratios[p] = f ? ratio(k, f.value, row.better) : null;
    }
    return {
      ...row,
      ratios,
      best: best
        ? { node: best.name, value: best.value, bounded: best.bounded, ratio: ratio(k, best.value, row.better) }
        : null,
      target: row.target ? { ...row.target, text: targetText(row), verdict: verdict(row) } : null,
    };
  });
}
