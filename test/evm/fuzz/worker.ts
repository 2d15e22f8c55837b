// A fuzz worker thread: runs its share of the seeds and reports divergences to the pool.
import { parentPort, workerData } from 'node:worker_threads';
import { kestrelEngine } from '../../../src/evm/statetest/kestrelEngine.ts';
import { ethereumjsEngine } from '../oracle.ts';
import { compareCase } from './differential.ts';
import { generateCase } from './generate.ts';
import type { FuzzJob, FuzzMessage } from './pool.ts';

const job = workerData as FuzzJob;
const send = (m: FuzzMessage) => parentPort!.postMessage(m);
await kestrelEngine.init();
await ethereumjsEngine.init();
let cases = 0;
let diverged = 0;
for (let i = job.index; i < job.count; i += job.workers) {
  const found = await compareCase(generateCase(job.first + i, job.fork), kestrelEngine, ethereumjsEngine, job.fork);
  cases++;
  if (found.length > 0) diverged++;
  for (const divergence of found) send({ kind: 'divergence', divergence });
}
send({ kind: 'done', cases, diverged });
