import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const MODULE = pathToFileURL(new URL('./workerBoot.ts', import.meta.url).pathname).href;

/**
 * Runs `body` in a fresh Node (under tsx, with this module imported as `w`): a fresh process, because the flag under
 * test only shows while the young generation is still at its initial size.
 */
function inFreshNode(body: string): string {
  const code = `const w = await import(${JSON.stringify(MODULE)}); const v8 = await import('node:v8'); ${body}`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  }).trim();
}

describe('startWorker', () => {
  it('keeps the V8 flags the node set (setNodeV8Flags) once a worker thread started, which resets them', () => {
    // --semi-space-growth-factor=1 keeps the new space at its initial size; were it reset by the worker's start, the
    // allocation below (objects surviving scavenges) would grow it to V8's maximum.
    const newSpaceMiB = inFreshNode(`
      w.setNodeV8Flags(['--semi-space-growth-factor=1']);
      const worker = w.startWorker('setTimeout(() => {}, 50)');
      await new Promise((resolve) => worker.once('online', resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const keep = [];
      for (let i = 0; i < 3e6; i++) {
        keep.push({ i, pair: [i, i + 1] });
        if (keep.length > 20000) keep.splice(0, 10000);
      }
      const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      console.log(space.space_size / 1048576);
      await worker.terminate();`);
    assert.ok(Number(newSpaceMiB) <= 4, `new space ${newSpaceMiB} MiB: the flag did not hold after the worker started`);
  });
});
