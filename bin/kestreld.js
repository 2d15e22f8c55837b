#!/usr/bin/env node
// Launcher: runs the compiled node (dist/bundle/kestreld.cjs: dist/ and its packages in one script, see
// scripts/build.mjs) with plain Node (no TypeScript loader), compiled with a V8 code cache (bin/load-bundle.js).
// It never builds: the build needs esbuild, a devDependency, which a production install does not have. `npm ci`
// (prepare), `npm start`, `npm run test:suite` and `npm run bench` build first; a missing build, or sources newer
// than it in a checkout, is an error that says to run `npm run build`, so nothing ever runs stale code.
import { fileURLToPath } from 'node:url';
import { staleReason } from './build-state.js';
import { loadBundle } from './load-bundle.js';

const stale = staleReason();
if (stale !== undefined) {
  process.stderr.write(`kestreld: the compiled node is missing or out of date (${stale}); run \`npm run build\`\n`);
  process.exit(1);
}
// `start` runs the node's code, the client commands little of it: each kind has its own code cache.
const kind = process.argv[2] === 'start' ? 'start' : 'cli';
const bundle = loadBundle(fileURLToPath(new URL('../dist/bundle/kestreld.cjs', import.meta.url)), kind);
// main resolves once the command's work is done (`start`: once the node listens and runs until a signal).
await bundle.exports.main(process.argv);
bundle.settled();
