#!/usr/bin/env node
// Launcher: registers the TypeScript hooks (bin/ts-hooks.mjs) so a fresh clone runs without a build step.
import { register } from 'node:module';
// Stack traces point at the .ts lines (the hooks emit inline source maps).
process.setSourceMapsEnabled(true);
register('./ts-hooks.mjs', import.meta.url);
const { main } = await import('../src/cli/index.ts');
await main(process.argv);
