// `npm run soak -- --minutes N`: the long soak (issue 30, item 4). One dev node under mixed load, sampled every
// --sample seconds; prints the curve and the verdict, writes a markdown result with --out. Exits 1 on a failed check.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  curveTable,
  defaultRefSeconds,
  runSoak,
  SOAK_BUDGET_MB,
  SOAK_INTERVALS_MS,
  soakMarkdown,
} from '../helpers/soak.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    sample: { type: 'string', default: '30' },
    out: { type: 'string' },
    note: { type: 'string', default: '' },
    // The node's [cache] budget-mb; "default" leaves the node's own (1024), whose caches fill for most of an hour.
    'budget-mb': { type: 'string', default: String(SOAK_BUDGET_MB) },
    // When the reference sample is taken (s); default 300, or 40% of a run shorter than 10 minutes.
    ref: { type: 'string' },
    // A kestreld flag for the soaked node, e.g. --node-arg=--cache.budget-mb=256 (repeatable).
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const seconds = Math.round(Number(values.minutes) * 60);
const sampleSeconds = Number(values.sample);
if (!(seconds > 0)) throw new Error(`--minutes must be a positive number, got ${values.minutes}`);
if (!(sampleSeconds > 0)) throw new Error(`--sample must be a positive number, got ${values.sample}`);
const refSeconds = values.ref === undefined ? defaultRefSeconds(seconds) : Number(values.ref);
if (!(refSeconds >= 0 && refSeconds < seconds)) throw new Error(`--ref must be in [0, run), got ${values.ref}`);
const budget = values['budget-mb'];
if (budget !== 'default' && !/^[1-9][0-9]*$/.test(budget)) throw new Error(`--budget-mb must be MiB or "default"`);
const args = [...(budget === 'default' ? [] : [`--cache.budget-mb=${budget}`]), ...values['node-arg']];
const started = new Date().toISOString();
console.log(`soak: kestreld start --dev ${args.join(' ')}; reference at ${refSeconds} s`);
const r = await runSoak({ seconds, sampleSeconds, refSeconds, args, log: (l) => console.log(`soak: ${l}`) });
console.log(curveTable(r.samples));
console.log(
  `soak (${started}): ${r.sent} sent, ${r.acked} acknowledged, ${r.mined} mined, ${r.lost.length} lost, ` +
    `${r.errors.length} errors; verdict ${r.failures.length === 0 ? 'PASS' : 'FAIL'}`,
);
for (const f of r.failures) console.log(`  - ${f}`);
if (values.out !== undefined) {
  const command = `npm run soak -- ${process.argv.slice(2).join(' ')}`;
  writeFileSync(
    values.out,
    soakMarkdown(
      r,
      command,
      started,
      `Node flags: \`${args.join(' ')}\`. Offered load, ms between starts per loop: ` +
        `${JSON.stringify(SOAK_INTERVALS_MS)} (2 senders, 2 readers, 1 getLogs, 1 tracer).`,
      values.note,
    ),
  );
  console.log(`soak: wrote ${values.out}`);
}
if (r.failures.length > 0) r.node.printLogs('soak found a problem');
await r.node.dispose();
process.exit(r.failures.length > 0 ? 1 : 0);
