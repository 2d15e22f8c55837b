// `npm start`: builds when the build is missing or older than the sources (as `node scripts/build.mjs` does), then
// runs `kestreld` with this process's arguments in this same process. One Node process instead of a build check
// followed by the launcher's own: the freshness check (a stat of every source) runs once, and a second Node start-up
// is saved. esbuild, a devDependency, is imported only when a build is needed.
import { ensureBuilt } from './build.mjs';
import { launch } from '../bin/launch.js';

const t = Date.now();
if (await ensureBuilt()) console.log(`dist/: built in ${Date.now() - t} ms`);
await launch(process.argv);
