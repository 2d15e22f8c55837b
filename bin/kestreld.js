#!/usr/bin/env node
// Launcher: runs the compiled node (dist/bundle/kestreld.cjs: dist/ and its packages in one script, see
// scripts/build.mjs) with plain Node (no TypeScript loader), compiled with a V8 code cache (bin/load-bundle.js).
// It never builds: the build needs esbuild, a devDependency, which a production install does not have. `npm ci`
// (prepare), `npm start` (scripts/start.mjs), `npm run test:suite` and `npm run bench` build first; a missing build,
// or sources newer than it in a checkout, is an error that says to run `npm run build`, so nothing ever runs stale
// code.
// CommonJS (bin/package.json): a CommonJS entry does not load Node's ES module loader, 20-30 ms of CPU here.
const { existsSync } = require('node:fs');
const { SRC, staleReasonAsync } = require('./build-state.js');
const { launch, StaleBuildError } = require('./launch.js');

// The freshness check (a stat of every source, on the thread pool) runs while the bundle is read and compiled; the
// bundle runs only once it said current.
launch(process.argv, staleReasonAsync()).catch((e) => {
  if (!(e instanceof StaleBuildError)) throw e;
  // A checkout builds; an installed package (no sources) was packed without its build.
  const fix = existsSync(SRC) ? 'run `npm run build`' : 'install a tarball made by `npm pack`, which builds it';
  process.stderr.write(`kestreld: the compiled node is missing or out of date (${e.message}); ${fix}\n`);
  process.exit(1);
});
