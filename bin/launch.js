// Runs the compiled node (dist/bundle/kestreld.cjs) with plain Node, loaded with its V8 code cache
// (bin/load-bundle.js). The build's freshness is the caller's to check: bin/kestreld.js refuses a missing or stale
// build, scripts/start.mjs (`npm start`) builds one first; both call this once they know it is current.
const { join } = require('node:path');
const { compileBundle } = require('./load-bundle.js');

/** The build is missing or older than its sources: the message says why. */
class StaleBuildError extends Error {}

/**
 * Runs the kestreld command in `argv` (process.argv's layout) on the current build; resolves once it settled.
 * `current`, when given, settles to why the build is not current (undefined: it is): the bundle is compiled while
 * it settles and runs only once it said current, else the launch fails with that reason (a StaleBuildError).
 */
async function launch(argv, current) {
  // `start` runs the node's code, the client commands little of it: each kind has its own code cache.
  const kind = argv[2] === 'start' ? 'start' : 'cli';
  let compiled;
  let failed;
  try {
    compiled = compileBundle(join(__dirname, '..', 'dist', 'bundle', 'kestreld.cjs'), kind);
  } catch (e) {
    // No bundle, say: the check's reason, if it has one, is the clearer error.
    failed = e;
  }
  const stale = await current;
  if (stale !== undefined) throw new StaleBuildError(stale);
  if (compiled === undefined) throw failed;
  const bundle = compiled.run();
  // main resolves once the command's work is done (`start`: once the node listens and runs until a signal).
  await bundle.exports.main(argv);
  bundle.settled();
}

module.exports = { StaleBuildError, launch };
