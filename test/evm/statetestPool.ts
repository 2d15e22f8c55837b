// Runs the repo's state-test bundles in a pool of worker threads and sums the results per set. The workers share
// one counter per set and each claims the next unclaimed fixture file when it reaches it, so the split follows
// the work: a fixed split left one worker idle for minutes while the other ran its share of the biggest files. Used by the CI test and by the manual runner script.
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** The repo's fixture bundles, in the order they are reported. */
export const FIXTURE_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'ethereum-tests');
export const SETS = [
  'GeneralStateTests',
  'eest-prague',
  'eest-cancun-for-prague',
  'eest-older-for-prague',
  'eest-osaka-for-prague',
  'eest-cancun',
  'eest-osaka',
  'eest-prague-for-osaka',
  'eest-cancun-for-osaka',
  'eest-older-for-osaka',
] as const;

/**
 * How many cases of each set run (pass or fail) and how many are skipped because their fork is not run: the CI
 * step checks both, so a bundle that lost cases, or a runner that stopped running a fork, fails it.
 */
export const EXPECTED_CASES: Readonly<Record<(typeof SETS)[number], { ran: number; skipped: number }>> = {
  GeneralStateTests: { ran: 19_009, skipped: 0 },
  'eest-prague': { ran: 1_439, skipped: 0 },
  'eest-cancun-for-prague': { ran: 1_399, skipped: 0 },
  'eest-older-for-prague': { ran: 1_050, skipped: 0 },
  'eest-osaka-for-prague': { ran: 156, skipped: 0 },
  'eest-cancun': { ran: 1_368, skipped: 4 },
  'eest-osaka': { ran: 1_210, skipped: 0 },
  'eest-prague-for-osaka': { ran: 1_875, skipped: 0 },
  'eest-cancun-for-osaka': { ran: 1_435, skipped: 0 },
  'eest-older-for-osaka': { ran: 1_088, skipped: 0 },
};

// Node 20 cannot start a worker from a .ts file even with tsx imported; the worker registers tsx, then loads it.
const WORKER_BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => {
  tsx.register();
  return import(${JSON.stringify(new URL('./statetestWorker.ts', import.meta.url).href)});
});`;

/** Which engine the workers load. */
export type EngineName = 'kestrel' | 'ethereumjs';

/** One failed case. */
export interface Failure {
  set: string;
  /** The fixture file inside its set. */
  file: string;
  name: string;
  fork: string;
  error: string;
}

/** Counts of one set. */
export interface SetCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** What a pool run found. */
export interface PoolSummary {
  counts: Record<string, SetCounts>;
  failures: Failure[];
  ms: number;
}

/** A worker's job. */
export interface WorkerJob {
  engine: EngineName;
  sets: string[];
  /** One Int32 per set: the next file index not yet claimed by any worker. */
  next: SharedArrayBuffer;
  run?: string;
}

/** A worker's messages: a failure as it happens, then its counts. */
export type WorkerMessage = { kind: 'failure'; failure: Failure } | { kind: 'done'; counts: Record<string, SetCounts> };

/** Runs `sets` (bundle names) on `engine` with `workers` threads. */
export async function runPool(
  engine: EngineName,
  opts: { sets?: readonly string[]; workers?: number; run?: string } = {},
  onFailure?: (f: Failure) => void,
): Promise<PoolSummary> {
  const started = performance.now();
  const sets = [...(opts.sets ?? SETS)];
  const count = opts.workers ?? Math.min(2, os.availableParallelism());
  const counts: Record<string, SetCounts> = Object.fromEntries(
    sets.map((s) => [s, { passed: 0, failed: 0, skipped: 0 }]),
  );
  const failures: Failure[] = [];
  const next = new SharedArrayBuffer(4 * sets.length);
  await Promise.all(
    Array.from({ length: count }, (_, index) => {
      const job: WorkerJob = { engine, sets, next, run: opts.run };
      const worker = new Worker(WORKER_BOOT, { eval: true, workerData: job });
      return new Promise<void>((resolve, reject) => {
        let done = false;
        worker.on('message', (m: WorkerMessage) => {
          if (m.kind === 'failure') {
            failures.push(m.failure);
            onFailure?.(m.failure);
          } else {
            for (const [set, c] of Object.entries(m.counts)) {
              counts[set]!.passed += c.passed;
              counts[set]!.failed += c.failed;
              counts[set]!.skipped += c.skipped;
            }
            done = true;
          }
        });
        worker.on('error', reject);
        worker.on('exit', (code) =>
          done ? resolve() : reject(new Error(`state-test worker ${index} exited with code ${code} before finishing`)),
        );
      });
    }),
  );
  return { counts, failures, ms: performance.now() - started };
}

/** Groups failures by set, directory of the fixture file and the error's kind, largest group first. */
export function failureCategories(
  failures: readonly Failure[],
): Array<{ key: string; count: number; example: Failure }> {
  const groups = new Map<string, { key: string; count: number; example: Failure }>();
  for (const f of failures) {
    const kind = f.error
      .replace(/0x[0-9a-f]+/gi, '…')
      .replace(/\(.*$/, '')
      .replace(/: .*$/, '')
      .slice(0, 60);
    const dir = f.file.includes('/') ? f.file.slice(0, f.file.lastIndexOf('/')) : f.file;
    const key = `${f.set}/${dir}: ${kind}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { key, count: 1, example: f });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}
