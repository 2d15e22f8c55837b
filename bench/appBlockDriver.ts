// Driver for profiling the app-block bench: `npx esbuild bench/appBlockDriver.ts --bundle --platform=node
// --format=esm --packages=external --outfile=dist/appBlockDriver.mjs && node dist/appBlockDriver.mjs [rounds]
// [transfers|erc20]` (tsx's keepNames inflates small costs). Prints the bench's rates and, per block (the warm-up
// blocks included), the CPU of finalizeBlock and of commit() for the whole process and for the main thread alone
// (Linux: /proc/thread-self/schedstat). The bench's rate counts the process: the rest is V8's GC and compiler
// threads and LevelDB's write and compaction threads.
import { readFileSync } from 'node:fs';
import { KestrelApp } from '../src/app/app.ts';
import { appBlockRates } from './lib/appBlock.ts';
import { processCpuUs } from './lib/procCpu.ts';

const rounds = Number(process.argv[2] ?? 10);
const only = process.argv[3] as 'transfers' | 'erc20' | undefined;

/** CPU microseconds of the calling thread so far (NaN where the kernel does not say). */
function threadUs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1000;
  } catch {
    return NaN;
  }
}

const spent = { finalizeProcess: 0, finalizeMain: 0, commitProcess: 0, commitMain: 0 };
let blocks = 0;
async function timed<T>(run: () => Promise<T>, process: keyof typeof spent, main: keyof typeof spent): Promise<T> {
  const p0 = processCpuUs();
  const t0 = threadUs();
  try {
    return await run();
  } finally {
    spent[process] += processCpuUs() - p0;
    spent[main] += threadUs() - t0;
  }
}
const finalizeBlock = KestrelApp.prototype.finalizeBlock;
KestrelApp.prototype.finalizeBlock = function (this: KestrelApp, ...args: Parameters<KestrelApp['finalizeBlock']>) {
  return timed(() => finalizeBlock.apply(this, args), 'finalizeProcess', 'finalizeMain');
};
const commit = KestrelApp.prototype.commit;
KestrelApp.prototype.commit = function (this: KestrelApp) {
  blocks++;
  return timed(() => commit.call(this), 'commitProcess', 'commitMain');
};
const r = await appBlockRates(rounds, only);
const msPerBlock = (us: number): number => +(us / blocks / 1000).toFixed(2);
console.log(
  JSON.stringify({
    ...r,
    finalizeMsPerBlock: { process: msPerBlock(spent.finalizeProcess), main: msPerBlock(spent.finalizeMain) },
    commitMsPerBlock: { process: msPerBlock(spent.commitProcess), main: msPerBlock(spent.commitMain) },
  }),
);
