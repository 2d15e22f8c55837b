// `npm run soak -- --minutes N`: the long soak (issue 30, item 4). One dev node under mixed load, sampled every
// --sample seconds; prints the curve and the verdict, writes a markdown result with --out. Exits 1 on a failed check.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { curveTable, runSoak, soakMarkdown } from '../helpers/soak.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    sample: { type: 'string', default: '30' },
    out: { type: 'string' },
    note: { type: 'string', default: '' },
    // A kestreld flag for the soaked node, e.g. --node-arg=--cache.budget-mb=256 (repeatable).
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const seconds = Math.round(Number(values.minutes) * 60);
const sampleSeconds = Number(values.sample);
if (!(seconds > 0)) throw new Error(`--minutes must be a positive number, got ${values.minutes}`);
if (!(sampleSeconds > 0)) throw new Error(`--sample must be a positive number, got ${values.sample}`);
const started = new Date().toISOString();
const r = await runSoak({ seconds, sampleSeconds, args: values['node-arg'], log: (l) => console.log(`soak: ${l}`) });
console.log(curveTable(r.samples));
console.log(
  `soak (${started}): ${r.sent} sent, ${r.acked} acknowledged, ${r.mined} mined, ${r.lost.length} lost, ` +
    `${r.errors.length} errors; verdict ${r.failures.length === 0 ? 'PASS' : 'FAIL'}`,
);
for (const f of r.failures) console.log(`  - ${f}`);
if (values.out !== undefined) {
  const command = `npm run soak -- ${process.argv.slice(2).join(' ')}`;
  writeFileSync(values.out, soakMarkdown(r, command, started, values.note));
  console.log(`soak: wrote ${values.out}`);
}
if (r.failures.length > 0) r.node.printLogs('soak found a problem');
await r.node.dispose();
process.exit(r.failures.length > 0 ? 1 : 0);
