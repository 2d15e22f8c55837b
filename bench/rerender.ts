// `node --import tsx bench/rerender.ts bench/results/<date>.json`: re-folds a results file's per-run samples with
// the current report code (medians, statuses, ratios, verdicts) and rewrites its rows and table in place, so a
// presentation fix does not need another hour-long run. The measurements themselves are left untouched.
import { readFileSync, writeFileSync } from 'node:fs';
import { NODE_NAMES, type NodeName } from './nodes/types.ts';
import { aggregate, formatTable, rowsToJson, type Row, type Sample } from './report.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node --import tsx bench/rerender.ts <results.json>\n');
  process.exit(2);
}
const json = JSON.parse(readFileSync(file, 'utf8')) as {
  settings: { nodes: NodeName[] };
  rows: Array<Row & { figures: Record<string, { samples: Sample[] }> }>;
  table: string;
  rerenderedAt?: string;
};
const nodes = NODE_NAMES.filter((n) => json.settings.nodes.includes(n));
const rows: Row[] = json.rows.map((r) => {
  const figures: Row['figures'] = {};
  for (const n of nodes) {
    const f = r.figures[n];
    if (f) figures[n] = aggregate(f.samples);
  }
  const target = r.target as unknown as (Row['target'] & { text?: string; verdict?: string }) | null;
  const spec = target
    ? {
        kind: target.kind,
        ...(target.kind === 'vsBest'
          ? { factor: target.factor, ...(target.peers ? { peers: target.peers } : {}) }
          : { limit: target.limit }),
      }
    : undefined;
  return {
    id: r.id,
    label: r.label,
    unit: r.unit,
    better: r.better,
    ...(spec ? { target: spec as Row['target'] } : {}),
    figures,
  };
});
json.rows = rowsToJson(rows, nodes) as typeof json.rows;
json.table = formatTable(rows, nodes);
json.rerenderedAt = new Date().toISOString();
writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
process.stdout.write(`${json.table}\n`);
