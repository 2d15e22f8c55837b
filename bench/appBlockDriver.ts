// Driver for profiling the app-block bench: `npx esbuild bench/appBlockDriver.ts --bundle --platform=node
// --format=esm --packages=external --outfile=dist/appBlockDriver.mjs && node dist/appBlockDriver.mjs [rounds]
// [transfers|erc20]` (tsx's keepNames inflates small costs). Prints the bench's rates and the CPU of commit() per
// block beside them (the bench's rate counts finalizeBlock and commit; this shows commit's share).
import { KestrelApp } from '../src/app/app.ts';
import { appBlockRates } from './lib/appBlock.ts';

const rounds = Number(process.argv[2] ?? 10);
const only = process.argv[3] as 'transfers' | 'erc20' | undefined;
let commitUs = 0;
let commits = 0;
const commit = KestrelApp.prototype.commit;
KestrelApp.prototype.commit = async function (this: KestrelApp) {
  const c0 = process.cpuUsage();
  try {
    return await commit.call(this);
  } finally {
    const c = process.cpuUsage(c0);
    commitUs += c.user + c.system;
    commits++;
  }
};
const r = await appBlockRates(rounds, only);
console.log(JSON.stringify({ ...r, commitMsPerBlock: +(commitUs / commits / 1000).toFixed(2) }));
