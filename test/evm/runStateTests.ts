// Manual run of the repo's state-test bundles with per-set counts and the largest failure categories:
//   node --import tsx test/evm/runStateTests.ts [--engine kestrel|ethereumjs] [--set NAME]... [--run REGEX]
//        [--workers N] [--failures FILE]   (FILE: every failure as JSON lines, written as found)
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { failureCategories, runPool, SETS, type EngineName } from './statetestPool.ts';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'kestrel' },
    set: { type: 'string', multiple: true },
    run: { type: 'string' },
    workers: { type: 'string', default: '2' },
    failures: { type: 'string' },
  },
});
const engine = values.engine as EngineName;
if (engine !== 'kestrel' && engine !== 'ethereumjs') throw new Error(`unknown engine ${engine}`);
const sets = values.set ?? [...SETS];
for (const s of sets)
  if (!(SETS as readonly string[]).includes(s)) throw new Error(`unknown set ${s} (${SETS.join(', ')})`);

if (values.failures !== undefined) fs.writeFileSync(values.failures, '');
const summary = await runPool(engine, { sets, workers: Number(values.workers), run: values.run }, (f) => {
  if (values.failures !== undefined) fs.appendFileSync(values.failures, JSON.stringify(f) + '\n');
});
let passed = 0;
let failed = 0;
for (const [set, c] of Object.entries(summary.counts)) {
  passed += c.passed;
  failed += c.failed;
  console.log(
    `${set.padEnd(24)} ${String(c.passed).padStart(6)} passed ${String(c.failed).padStart(6)} failed ${c.skipped ? `(${c.skipped} skipped: fork not run)` : ''}`,
  );
}
console.log(
  `total: ${passed} passed, ${failed} failed in ${(summary.ms / 1000).toFixed(1)} s (${engine}, ${values.workers} workers)`,
);
for (const g of failureCategories(summary.failures).slice(0, 25)) {
  console.log(
    `\n${String(g.count).padStart(5)}  ${g.key}\n       e.g. ${g.example.name} [${g.example.fork}]\n       ${g.example.error.slice(0, 400)}`,
  );
}
