// Differential fuzzing, Kestrel's engine against @ethereumjs/vm (Prague), for long manual runs:
//   node --import tsx test/evm/fuzz/run.ts [--seed 1] [--count 100000] [--workers 2] [--out divergences.jsonl]
// Case i uses seed `seed + i`; a divergence prints its seed, so `--seed S --count 1` replays it.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Divergence } from './differential.ts';
import { runFuzzPool } from './pool.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    count: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '2' },
    out: { type: 'string' },
  },
});
const first = Number(values.seed);
const count = Number(values.count);
const byField = new Map<string, Divergence[]>();
const summary = await runFuzzPool(first, count, Number(values.workers), (d) => {
  const list = byField.get(d.field) ?? [];
  list.push(d);
  byField.set(d.field, list);
  if (values.out !== undefined) fs.appendFileSync(values.out, JSON.stringify(d) + '\n');
});
console.log(
  `${summary.cases} cases from seed ${first}: ${summary.diverged} diverged in ${(summary.ms / 1000).toFixed(1)} s`,
);
for (const [field, list] of byField) {
  const d = list[0]!;
  console.log(
    `${field}: ${list.length}, e.g. seed ${d.seed}: kestrel ${d.kestrel.slice(0, 200)} | ethereumjs ${d.ethereumjs.slice(0, 200)}`,
  );
}
