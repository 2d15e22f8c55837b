// A state-test worker thread: runs the fixture files of each set it claims and reports failures and counts.
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { StateTestEngine } from '../../src/evm/statetest/engine.ts';
import { runStateTestCases } from '../../src/evm/statetest/runner.ts';
import { FIXTURE_DIR, type SetCounts, type WorkerJob, type WorkerMessage } from './statetestPool.ts';

const job = workerData as WorkerJob;

async function loadEngine(name: WorkerJob['engine']): Promise<StateTestEngine> {
  if (name === 'ethereumjs') return (await import('./oracle.ts')).ethereumjsEngine;
  return (await import('../../src/evm/statetest/kestrelEngine.ts')).kestrelEngine;
}

const engine = await loadEngine(job.engine);
const counts: Record<string, SetCounts> = {};
const send = (m: WorkerMessage) => parentPort!.postMessage(m);
const next = new Int32Array(job.next);
for (const [setIndex, set] of job.sets.entries()) {
  // Every worker walks the same files in the same order; the one holding a file's index runs it, then claims the
  // next free index. Each file is thus run exactly once, by whichever worker reached it first.
  let mine = Atomics.add(next, setIndex, 1);
  const c: SetCounts = { passed: 0, failed: 0, skipped: 0 };
  counts[set] = c;
  const bundle = path.join(FIXTURE_DIR, `${set}.json.br`);
  const results = runStateTestCases([bundle], {
    engine,
    claim: (fileIndex) => {
      if (fileIndex !== mine) return false;
      mine = Atomics.add(next, setIndex, 1);
      return true;
    },
    run: job.run === undefined ? undefined : new RegExp(job.run),
    onSkip: () => c.skipped++,
  });
  for await (const { result: r, file } of results) {
    if (r.pass) c.passed++;
    else {
      c.failed++;
      const inner = file.startsWith(bundle + '/') ? file.slice(bundle.length + 1) : file;
      send({ kind: 'failure', failure: { set, file: inner, name: r.name, fork: r.fork, error: r.error ?? '' } });
    }
  }
}
send({ kind: 'done', counts });
