// Differential fuzzing in worker threads: worker k of n runs the seeds first+k, first+k+n, …
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Fork } from '../../../src/evm/types.ts';
import type { Divergence } from './differential.ts';

/** A worker's job. */
export interface FuzzJob {
  first: number;
  count: number;
  index: number;
  workers: number;
  fork: Fork;
}

/** A worker's messages: divergences as found, then how many cases it ran. */
export type FuzzMessage =
  { kind: 'divergence'; divergence: Divergence } | { kind: 'done'; cases: number; diverged: number };

// Node 20 cannot start a worker from a .ts file even with tsx imported; the worker registers tsx, then loads it.
const BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => {
  tsx.register();
  return import(${JSON.stringify(new URL('./worker.ts', import.meta.url).href)});
});`;

/** What a pool run found. */
export interface FuzzSummary {
  cases: number;
  diverged: number;
  divergences: Divergence[];
  ms: number;
}

/** Runs seeds [first, first + count) of `fork` on `workers` threads. */
export async function runFuzzPool(
  first: number,
  count: number,
  workers = Math.min(2, os.availableParallelism()),
  onDivergence?: (d: Divergence) => void,
  fork: Fork = 'Prague',
): Promise<FuzzSummary> {
  const started = performance.now();
  const summary: FuzzSummary = { cases: 0, diverged: 0, divergences: [], ms: 0 };
  await Promise.all(
    Array.from({ length: workers }, (_, index) => {
      const job: FuzzJob = { first, count, index, workers, fork };
      const worker = new Worker(BOOT, { eval: true, workerData: job });
      return new Promise<void>((resolve, reject) => {
        let done = false;
        worker.on('message', (m: FuzzMessage) => {
          if (m.kind === 'divergence') {
            summary.divergences.push(m.divergence);
            onDivergence?.(m.divergence);
          } else {
            summary.cases += m.cases;
            summary.diverged += m.diverged;
            done = true;
          }
        });
        worker.on('error', reject);
        worker.on('exit', (code) =>
          done ? resolve() : reject(new Error(`fuzz worker ${index} exited with code ${code} before finishing`)),
        );
      });
    }),
  );
  summary.ms = performance.now() - started;
  return summary;
}
