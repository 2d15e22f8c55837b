#!/usr/bin/env node
// Launcher: registers the TypeScript loader so a fresh clone runs without a build step.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/index.ts');
await main(process.argv);
