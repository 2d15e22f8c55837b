#!/usr/bin/env node
// Launcher: runs the TypeScript sources without a build step. The fast path imports them as one cached bundle
// (bin/bundle.mjs, rebuilt when a source changes); when it cannot be built, the hooks (bin/ts-hooks.mjs)
// load them file by file, and report the error as Node would.
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleStackFormatter, importBundled } from './bundle.mjs';

// Stack traces point at the .ts lines: through the bundle's source maps, read only when a stack is formatted.
Error.prepareStackTrace = bundleStackFormatter();
const root = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
let cli = await importBundled(root('src/cli/index.ts'), {
  tsconfigPath: root('tsconfig.json'),
  lockfilePath: root('package-lock.json'),
});
if (!cli) {
  // The hooks emit inline source maps, which Node applies once told to.
  Error.prepareStackTrace = undefined;
  process.setSourceMapsEnabled(true);
  register('./ts-hooks.mjs', import.meta.url);
  cli = await import('../src/cli/index.ts');
}
await cli.main(process.argv);
