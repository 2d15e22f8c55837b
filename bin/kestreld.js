#!/usr/bin/env node
// Launcher: runs the compiled node (dist/bundle/kestreld.js: dist/ and its packages bundled, split into chunks that
// load on first use, see scripts/build.mjs) with plain Node (no TypeScript loader). `npm ci` (prepare) and `npm start` build it; in a
// checkout, a source newer than the build is compiled first (esbuild, under 2 s), so tests and hand-run commands
// never run stale code.
import { ensureBuilt } from '../scripts/build.mjs';

await ensureBuilt();
const { main } = await import('../dist/bundle/kestreld.js');
await main(process.argv);
