// Differential fuzzing, Kestrel's engine against @ethereumjs/vm (Prague or Osaka), for long manual runs:
//   node --import tsx test/evm/fuzz/run.ts [--seed 1] [--count 100000] [--workers 2] [--fork Prague|Osaka]
//        [--out divergences.jsonl]
// Case i uses seed `seed + i`; a divergence prints its seed, so `--seed S --count 1` replays it.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Fork } from '../../../src/evm/types.ts';
import type { Divergence } from './differential.ts';
import { runFuzzPool } from './pool.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    count: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '2' },
    fork: { type: 'string', default: 'Prague' },
    out: { type: 'string' },
  },
});
const fork = values.fork as Fork;
if (fork !== 'Prague' && fork !== 'Osaka') throw new Error(`--fork: Prague or Osaka, not ${values.fork}`);
const first = Number(values.seed);
const count = Number(values.count);
const byField = new Map<string, Divergence[]>();
const summary = await runFuzzPool(
  first,
  count,
  Number(values.workers),
  (d) => {
    const list = byField.get(d.field) ?? [];
    list.push(d);
    byField.set(d.field, list);
    if (values.out !== undefined) fs.appendFileSync(values.out, JSON.stringify(d) + '\n');
  },
  fork,
);
console.log(
  `${summary.cases} ${fork} cases from seed ${first}: ${summary.diverged} diverged in ${(summary.ms / 1000).toFixed(1)} s`,
);
for (const [field, list] of byField) {
  const d = list[0]!;
  console.log(
    `${field}: ${list.length}, e.g. seed ${d.seed}: kestrel ${d.kestrel.slice(0, 200)} | ethereumjs ${d.ethereumjs.slice(0, 200)}`,
  );
}
