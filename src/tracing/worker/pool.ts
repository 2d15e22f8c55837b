// The node's side of tracer workers: a small pool of warm workers (starting one costs hundreds of milliseconds:
// it loads the EVM, the QuickJS WebAssembly module and the TypeScript loader), each running one job at a time.
// A worker whose tracer passed its deadline is terminated, which ends even a tracer stuck inside one long
// built-in call, and a fresh one is started in the background to take its place.
import type { Worker } from 'node:worker_threads';
import { ExecutionError } from '../../errors/index.ts';
import type { Fork } from '../../evm/index.ts';
import { OutputCapExceeded, TIMEOUT_MESSAGE, TraceAbort } from '../errors.ts';
import type { SandboxLimits } from '../js/limits.ts';
import type { NodeSource } from '../syncState.ts';
import type { FailureKind, Job, JobBody, Reply, WorkerInit } from './protocol.ts';
import { serveReads } from './readBridge.ts';
import { startWorker, workerBootCode } from '../../primitives/workerBoot.ts';

/** How long past its deadline a tracer may run before its worker is terminated (it normally stops itself). */
const KILL_GRACE_MS = 100;
/** A job that never reaches its traced transaction (a bug, not a tracer) is given up after this long. */
const STALL_MS = 120_000;

/** What the workers need from the node. */
export interface TracerWorkersOptions {
  evmChainId: bigint;
  fork: Fork;
  gasCap: bigint;
  sandbox: SandboxLimits;
  readNode: NodeSource;
  hashOf: (n: bigint) => Uint8Array | undefined;
  /** Warm workers kept (the number of traces that may run at once). */
  size: number;
  /** V8 heap cap of one worker (the QuickJS heap, in WebAssembly memory, has its own cap). */
  heapMb: number;
}

interface Running {
  id: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** One worker thread and the job it runs. */
class TraceWorker {
  readonly ready: Promise<void>;
  private running?: Running;
  private nextId = 1;
  private dead?: Error;
  private readonly worker: Worker;
  private markReady!: () => void;
  private failStart!: (e: Error) => void;

  constructor(opts: TracerWorkersOptions, boot: string) {
    // node:worker_threads is loaded here, with the first tracer worker: ~5 ms a node's start does not need.
    const threads = process.getBuiltinModule('node:worker_threads');
    const { port1, port2 } = new threads.MessageChannel();
    const signal = new SharedArrayBuffer(4);
    serveReads(port1, new Int32Array(signal), opts.readNode, opts.hashOf);
    const init: WorkerInit = {
      evmChainId: opts.evmChainId,
      fork: opts.fork,
      gasCap: opts.gasCap,
      sandbox: opts.sandbox,
      reads: port2,
      signal,
    };
    this.ready = new Promise<void>((resolve, reject) => {
      this.markReady = resolve;
      this.failStart = reject;
    });
    this.ready.catch(() => {});
    this.worker = startWorker(boot, {
      workerData: init,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: opts.heapMb, maxYoungGenerationSizeMb: 32 },
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    this.worker.on('message', (m: Reply) => this.onMessage(m));
    this.worker.on('error', (e: Error & { code?: string }) => {
      this.end(
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new TraceAbort('tracer worker ran out of memory')
          : new ExecutionError(`tracer worker failed: ${e.message}`),
      );
    });
    this.worker.on('exit', () => {
      port1.close();
      this.end(new ExecutionError('tracer worker exited'));
    });
  }

  /** False once the worker was terminated or died. */
  get alive(): boolean {
    return this.dead === undefined;
  }

  /** Runs one job; rejects with the tracer's error, or `execution timeout` when the worker had to be killed. */
  run(body: JobBody): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.running) return Promise.reject(new Error('tracer worker busy'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.kill(new ExecutionError('tracer worker stalled')), STALL_MS);
      this.running = { id, resolve, reject, timer };
      const job: Job = { ...body, id };
      this.worker.postMessage(job);
    });
  }

  private onMessage(m: Reply): void {
    if (m.type === 'ready') {
      this.markReady();
      return;
    }
    const r = this.running;
    if (!r || r.id !== m.id) return;
    if (m.type === 'armed') {
      if (m.deadline === 0) return; // no deadline: only the stall guard
      clearTimeout(r.timer);
      r.timer = setTimeout(
        () => this.kill(new TraceAbort(TIMEOUT_MESSAGE)),
        Math.max(0, m.deadline - Date.now()) + KILL_GRACE_MS,
      );
      return;
    }
    clearTimeout(r.timer);
    this.running = undefined;
    if (m.type === 'done') r.resolve(m.value);
    else r.reject(failure(m.kind, m.message));
  }

  /** Terminates the worker; its job (if any) fails with `reason`. */
  kill(reason: Error): void {
    this.end(reason);
    void this.worker.terminate();
  }

  private end(reason: Error): void {
    if (this.dead) return;
    this.dead = reason;
    this.failStart(reason);
    const r = this.running;
    this.running = undefined;
    if (r) {
      clearTimeout(r.timer);
      r.reject(reason);
    }
  }
}

/** A run of jobs on one worker (a block trace keeps its replay in the worker between transactions). */
export interface WorkerSession {
  /** Runs a job; after a killed worker the next job goes to a fresh one. */
  run(body: JobBody): Promise<unknown>;
}

/** The error a worker's failure becomes on this side, of the class it had there. */
function failure(kind: FailureKind, message: string): Error {
  switch (kind) {
    case 'outputCap':
      return new OutputCapExceeded(message);
    case 'abort':
      return new TraceAbort(message);
    default:
      return new ExecutionError(message);
  }
}

/** A pool of warm tracer workers. */
export class TracerWorkers {
  private readonly idle: TraceWorker[] = [];
  /** Callers waiting for a worker that is warming up (cheaper than starting yet another one). */
  private readonly waiters: Array<(w: TraceWorker | undefined) => void> = [];
  private warming = 0;
  private boot?: string;
  private closed = false;

  constructor(private readonly opts: TracerWorkersOptions) {}

  private spawn(): TraceWorker {
    this.boot ??= workerBootCode(import.meta.url);
    return new TraceWorker(this.opts, this.boot);
  }

  /** Starts a worker in the background so the next trace finds it warm. */
  private prewarm(): void {
    if (this.closed || this.idle.length + this.warming >= this.opts.size) return;
    this.warming++;
    const w = this.spawn();
    w.ready.then(
      () => {
        this.warming--;
        const waiter = this.waiters.shift();
        if (this.closed) {
          w.kill(new ExecutionError('tracing stopped'));
          waiter?.(undefined);
        } else if (waiter) {
          waiter(w);
        } else {
          this.idle.push(w);
        }
      },
      () => {
        this.warming--;
        this.waiters.shift()?.(undefined);
      },
    );
  }

  private async acquire(): Promise<TraceWorker> {
    for (;;) {
      const w = this.idle.pop();
      if (!w) break;
      if (w.alive) return w;
    }
    if (this.warming > this.waiters.length) {
      const warmed = await new Promise<TraceWorker | undefined>((resolve) => this.waiters.push(resolve));
      if (warmed?.alive) return warmed;
    }
    const w = this.spawn();
    await w.ready;
    return w;
  }

  private release(w: TraceWorker): void {
    if (w.alive && !this.closed && this.idle.length < this.opts.size) this.idle.push(w);
    else if (w.alive) w.kill(new ExecutionError('tracing stopped'));
    else this.prewarm();
  }

  /** Runs `fn` with a worker session; the worker goes back to the pool afterwards. */
  async session<T>(fn: (s: WorkerSession) => Promise<T>): Promise<T> {
    if (this.closed) throw new ExecutionError('tracing stopped');
    let w = await this.acquire();
    const session: WorkerSession = {
      run: async (body) => {
        if (!w.alive) {
          this.release(w);
          w = await this.acquire();
        }
        return w.run(body);
      },
    };
    try {
      return await fn(session);
    } finally {
      this.release(w);
    }
  }

  /** Terminates every idle worker; running jobs end when their session does. */
  close(): void {
    this.closed = true;
    for (const w of this.idle.splice(0)) w.kill(new ExecutionError('tracing stopped'));
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
