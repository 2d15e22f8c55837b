// Where the state tests' time goes: runs one bundle on one thread and prints each fixture file's wall time (the
// time from the previous case's result to its own), largest first.
//   node --import tsx test/evm/stateTestTimes.ts SET [--top N]   (SET: a bundle name from statetestPool's SETS)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { kestrelEngine } from '../../src/evm/statetest/kestrelEngine.ts';
import { runStateTestCases } from '../../src/evm/statetest/runner.ts';
import { FIXTURE_DIR, SETS } from './statetestPool.ts';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '20' } },
  allowPositionals: true,
});
const set = positionals[0];
if (set === undefined || !(SETS as readonly string[]).includes(set))
  throw new Error(`usage: stateTestTimes.ts SET [--top N] (SET: ${SETS.join(', ')})`);
const bundle = path.join(FIXTURE_DIR, `${set}.json.br`);
const perFile = new Map<string, { ms: number; cases: number }>();
const started = performance.now();
let last = started;
let cases = 0;
let failed = 0;
for await (const { result, file } of runStateTestCases([bundle], { engine: kestrelEngine })) {
  const now = performance.now();
  const entry = perFile.get(file) ?? { ms: 0, cases: 0 };
  entry.ms += now - last;
  entry.cases++;
  perFile.set(file, entry);
  last = now;
  cases++;
  if (!result.pass) failed++;
}
console.log(`${set}: ${cases} cases, ${failed} failed, ${((performance.now() - started) / 1000).toFixed(1)} s`);
for (const [file, e] of [...perFile].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(values.top)))
  console.log(
    `${e.ms.toFixed(0).padStart(9)} ms ${String(e.cases).padStart(5)} cases  ${file.slice(bundle.length + 1)}`,
  );
