// Runs the compiled node (dist/bundle/kestreld.cjs) with plain Node, loaded with its V8 code cache
// (bin/load-bundle.js). The build's freshness is the caller's to check: bin/kestreld.js refuses a missing or stale
// build, scripts/start.mjs (`npm start`) builds one first; both call this once they know it is current.
import { fileURLToPath } from 'node:url';
import { loadBundle } from './load-bundle.js';

/** Runs the kestreld command in `argv` (process.argv's layout) on the current build; resolves once it settled. */
export async function launch(argv) {
  // `start` runs the node's code, the client commands little of it: each kind has its own code cache.
  const kind = argv[2] === 'start' ? 'start' : 'cli';
  const bundle = loadBundle(fileURLToPath(new URL('../dist/bundle/kestreld.cjs', import.meta.url)), kind);
  // main resolves once the command's work is done (`start`: once the node listens and runs until a signal).
  await bundle.exports.main(argv);
  bundle.settled();
}
