// The code a worker thread boots with, shared by every worker pool of the node.

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
