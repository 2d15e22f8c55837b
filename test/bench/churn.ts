// `npm run churn -- --minutes N`: the long validator-churn run (issue 30, item 1): 8 senders, transfers and ERC20
// transfers, one validator perturbed every 30 s (kill -9 of the app, kill -9 of CometBFT, SIGSTOP/SIGCONT for 10 s,
// a restart, a restart with an empty CometBFT address book). Prints the figures; exits 1 when a check fails.
import { parseArgs } from 'node:util';
import { churnSummary, runChurn } from '../helpers/churn.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    senders: { type: 'string', default: '8' },
    'no-journal': { type: 'boolean', default: false },
  },
});
const seconds = Math.round(Number(values.minutes) * 60);
if (!(seconds > 0)) throw new Error(`--minutes must be a positive number, got ${values.minutes}`);
const started = new Date().toISOString();
const r = await runChurn({
  seconds,
  senders: Number(values.senders),
  everySeconds: 30,
  perturbations: ['killApp', 'killComet', 'pause', 'restart', 'emptyAddressBook'],
  erc20: true,
  noJournal: values['no-journal'],
  settleSeconds: 180,
  log: (l) => console.log(`churn: ${l}`),
});
console.log(`churn (${started}): ${churnSummary(r)}`);
for (const [what, list] of [
  ['lost', r.lost],
  ['mined twice', r.duplicated],
  ['stuck', r.stuck],
  ['disagreements', r.disagreements],
  ['secrets in the logs', r.leaked],
] as const) {
  if (list.length > 0) console.log(`${what} (first 10 of ${list.length}):\n  ${list.slice(0, 10).join('\n  ')}`);
}
const failed = r.lost.length + r.duplicated.length + r.stuck.length + r.disagreements.length + r.leaked.length > 0;
if (failed) r.net.printLogs('churn found a problem');
await r.net.dispose();
process.exit(failed ? 1 : 0);
