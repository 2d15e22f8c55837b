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
}

/** The figure of one workload on one node over all runs. */
export interface Figure extends Sample {
  samples: Sample[];
}

/** Which direction is better for a unit. */
export type Better = 'higher' | 'lower';

/** The issue's target for a workload. */
export type Target =
  { kind: 'vsBest'; factor: number } | { kind: 'max'; limit: number } | { kind: 'min'; limit: number };

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

// A peer that was still mining at the time bound has a real throughput figure (what it mined per second), so it can
// be the best peer; a stalled, rejecting or hanging peer cannot. Kestrel itself must finish to meet a target.
const peerUsable = (f: Figure | undefined): f is Figure & { value: number } =>
  f !== undefined && (f.status === 'ok' || f.status === 'timeout') && f.value !== null;

/** The best peer of a row among peers with a valid figure (ok, or still mining at the time bound). */
export function bestPeer(row: Row): { name: NodeName; value: number } | null {
  let best: { name: NodeName; value: number } | null = null;
  for (const name of NODE_NAMES) {
    if (name === 'kestrel') continue;
    const f = row.figures[name];
    if (!peerUsable(f)) continue;
    if (best === null || (row.better === 'higher' ? f.value > best.value : f.value < best.value))
      best = { name, value: f.value };
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
  return row.target.factor === 1
    ? row.better === 'lower'
      ? '≤ best peer'
      : '≥ best peer'
    : `≥ ${row.target.factor}× best peer`;
}

/** A figure's value for a table cell: thousands separators, one decimal below 100. */
export function formatNumber(v: number): string {
  if (v >= 100) return Math.round(v).toLocaleString('en-US');
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** A figure as a table cell: the value, with the failure status when the figure is not ok. */
export function formatFigure(f: Figure | undefined): string {
  if (f === undefined) return '–';
  const v = f.value === null ? '' : formatNumber(f.value);
  if (f.status === 'ok') return v;
  return v === '' ? f.status : `${v} (${f.status})`;
}

/** A ratio as a table cell. */
export function formatRatio(r: number | null): string {
  return r === null ? '–' : `${r.toFixed(2)}×`;
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
      ...nodes.map((n) => formatFigure(row.figures[n])),
      ...peers.map((p) => {
        const f = row.figures[p];
        return formatRatio(peerUsable(f) ? ratio(k, f.value, row.better) : null);
      }),
      best ? `${formatRatio(ratio(k, best.value, row.better))} (${best.name})` : '–',
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
      const f = row.figures[p];
      ratios[p] = peerUsable(f) ? ratio(k, f.value, row.better) : null;
    }
    return {
      ...row,
      ratios,
      best: best ? { node: best.name, value: best.value, ratio: ratio(k, best.value, row.better) } : null,
      target: row.target ? { ...row.target, text: targetText(row), verdict: verdict(row) } : null,
    };
  });
}
