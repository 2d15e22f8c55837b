#!/usr/bin/env node
// Launcher: runs the compiled node in dist/ with plain Node (no TypeScript loader). `npm ci` (prepare) and
// `npm start` build it; in a checkout, a source newer than the build is compiled first (esbuild, under 2 s), so
// tests and hand-run commands never run stale code.
import { ensureBuilt } from '../scripts/build.mjs';

await ensureBuilt();
const { main } = await import('../dist/cli/index.js');
await main(process.argv);
