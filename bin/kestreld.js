#!/usr/bin/env node
// Launcher: runs the compiled node (dist/bundle/kestreld.cjs: dist/ and its packages in one script, see
// scripts/build.mjs) with plain Node (no TypeScript loader), compiled with a V8 code cache (bin/load-bundle.js).
// `npm ci` (prepare) and `npm start` build it; in a checkout, a source newer than the build is compiled first
// (esbuild, under 2 s), so tests and hand-run commands never run stale code.
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../scripts/build.mjs';
import { loadBundle } from './load-bundle.js';

await ensureBuilt();
// `start` runs the node's code, the client commands little of it: each kind has its own code cache.
const kind = process.argv[2] === 'start' ? 'start' : 'cli';
const bundle = loadBundle(fileURLToPath(new URL('../dist/bundle/kestreld.cjs', import.meta.url)), kind);
// main resolves once the command's work is done (`start`: once the node listens and runs until a signal).
await bundle.exports.main(process.argv);
bundle.settled();
