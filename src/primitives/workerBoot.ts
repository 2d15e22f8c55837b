// How a worker thread starts (its boot code, the V8 flags it must not undo), shared by every worker pool of the node.
import type { Worker, WorkerOptions } from 'node:worker_threads';

/**
 * Boot code for a worker whose entry module sits beside `callerUrl` (the pool's import.meta.url): plain JavaScript
 * when compiled (dist/, how the node runs); under tsx (unit tests) the worker registers tsx first.
 */
export function workerBootCode(callerUrl: string): string {
  const compiled = callerUrl.endsWith('.js');
  const entry = new URL(compiled ? './entry.js' : './entry.ts', callerUrl).href;
  if (compiled) return `import(${JSON.stringify(entry)})`;
  const loader = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(loader)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
}

/** The V8 flags this process set at run time (setNodeV8Flags), by flag name: what a worker's start undoes. */
const nodeV8Flags = new Map<string, string>();

/** Sets V8 flags (`--name=value`) for this process and remembers them, so that startWorker can set them again. */
export function setNodeV8Flags(flags: readonly string[]): void {
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  for (const flag of flags) {
    nodeV8Flags.set(flag.split('=')[0]!, flag);
    setFlagsFromString(flag);
  }
}

/**
 * Starts a worker thread that evaluates `boot` (workerBootCode). As a worker thread starts, Node resets the V8 flags
 * this process set at run time to their defaults (Node 20: the heap's growth flags stop holding from the first
 * worker on), so once the worker is online this sets them again; before that a few milliseconds run under V8's
 * defaults.
 */
export function startWorker(boot: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  // node:worker_threads is loaded here, with the first worker: ~5 ms a node's start does not need.
  const worker = new (process.getBuiltinModule('node:worker_threads').Worker)(boot, { ...options, eval: true });
  worker.once('online', () => {
    const { setFlagsFromString } = process.getBuiltinModule('node:v8');
    for (const flag of nodeV8Flags.values()) setFlagsFromString(flag);
  });
  return worker;
}
