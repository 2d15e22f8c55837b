// The tracer worker: replays transactions and runs JavaScript tracers off the node's main thread, so the node can
// end a runaway tracer at its deadline with worker.terminate() (QuickJS checks its interrupt handler only between
// bytecode batches: one long built-in call such as a huge sort or a catastrophic regex would otherwise overrun)
// and keeps serving RPC while a trace runs. State comes from the node through the read bridge.
import { parentPort, workerData } from 'node:worker_threads';
import { CallService } from '../../app/evm/call.ts';
import { initEngine } from '../../evm/index.ts';
import { createFastKeccak, createSharedCommon } from '../../app/evm/common.ts';
import { errorMessage, ExecutionError } from '../../errors/index.ts';
import { traceCallWith } from '../callTrace.ts';
import { OutputCapExceeded, TraceAbort } from '../errors.ts';
import { JsTracer } from '../js/jsTracer.ts';
import { SandboxHost } from '../js/sandbox.ts';
import { BlockReplay, type ReplayDeps, type TracerFactory } from '../replay.ts';
import { fromWire, type FailureKind, type Job, type JsTraceSpec, type Reply, type WorkerInit } from './protocol.ts';
import { ReadBridge } from './readBridge.ts';
import { bareHex } from '../../primitives/hex.ts';

const init = workerData as WorkerInit;
const port = parentPort!;
const post = (r: Reply): void => port.postMessage(r);

const keccak = await createFastKeccak();
const common = createSharedCommon(init.evmChainId, keccak, init.fork);
const bridge = new ReadBridge(init.reads, init.signal);
const deps: ReplayDeps = { common, hashOf: (n) => bridge.hash(n), readNode: (k) => bridge.node(k) };
const calls = new CallService(common, deps.hashOf, { gasCap: init.gasCap, timeoutMs: 0 }, deps.readNode);
const sandboxes = new SandboxHost(init.sandbox);
await Promise.all([sandboxes.warm(), initEngine()]);

/** The replay of the last block traced: a block trace sends its transactions one job at a time. */
let current: { hash: string; replay: BlockReplay } | undefined;

function tracerFactory(id: number, spec: JsTraceSpec): TracerFactory {
  return async (deadline) => {
    post({ type: 'armed', id, deadline });
    const t = await JsTracer.create(sandboxes, spec.source, spec.tracerConfig, deadline);
    return { tracer: t, close: () => t.close() };
  };
}

async function run(job: Job): Promise<unknown> {
  const make = tracerFactory(job.id, job.spec);
  if (job.type === 'call') {
    return (await traceCallWith(calls, job.req, fromWire(job.block, common), make, job.spec.timeoutMs, job.overrides))
      .value;
  }
  const key = bareHex(job.block.hash);
  if (current?.hash !== key)
    current = { hash: key, replay: new BlockReplay(deps, fromWire(job.block, common), job.parentRoot) };
  return (await current.replay.trace(job.index, make, job.spec.timeoutMs)).value;
}

port.on('message', (job: Job) => {
  run(job).then(
    (value) => post({ type: 'done', id: job.id, value }),
    (e: unknown) => {
      const kind: FailureKind =
        e instanceof OutputCapExceeded
          ? 'outputCap'
          : e instanceof TraceAbort
            ? 'abort'
            : e instanceof ExecutionError
              ? 'execution'
              : 'other';
      post({ type: 'failed', id: job.id, kind, message: errorMessage(e) });
    },
  );
});
post({ type: 'ready' });
