// Preloaded into every test file's process (`node --import tsx --import ./test/helpers/exitGuard.ts --test ...`)
// in place of node's --test-force-exit. That flag ends a file's process the moment its tests are done, before the
// results still queued on the pipe to the runner are written: the runner then reports fewer tests than ran, and on
// Node 22 a result cut mid-frame can spin the runner forever (nodejs/node#64833 and #62693; CI waited 5,400 s).
// Here a file's process ends on its own once its tests are done; only if a handle it left open still holds it
// GRACE_MS later does the guard name the handles on stderr, let stdout drain, and exit with the runner's code.
import { after } from 'node:test';

const GRACE_MS = 5_000;

/** Ends the process once stdout has written everything queued on it. */
function exitAfterDrain(): void {
  if (process.stdout.writableLength === 0) process.exit();
  process.stdout.once('drain', () => process.exit());
}

// The runner's own process loads this preload too; only the file processes it starts (NODE_TEST_CONTEXT=child or
// child-v8) are guarded.
if (process.env.NODE_TEST_CONTEXT?.startsWith('child') === true) {
  after(() => {
    setTimeout(() => {
      const handles = process.getActiveResourcesInfo().join(', ');
      const file = process.argv[1] ?? 'a test file';
      process.stderr.write(`exitGuard: ${file} still running ${GRACE_MS} ms after its tests, held by: ${handles}\n`);
      exitAfterDrain();
    }, GRACE_MS).unref();
  });
}
