// Whether dist/ holds a build of the sources as they are now: plain Node, no devDependency, so the launcher
// (bin/kestreld.js) can refuse a missing or stale build at run time and the build step (scripts/build.mjs) can
// decide whether to rebuild, both by the same rule.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (or installed package) root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SRC = join(ROOT, 'src');
export const DIST = join(ROOT, 'dist');
/** Where the bundle goes, relative to dist/ (pruning leaves it alone), and the bundle there. */
export const BUNDLE_DIR = 'bundle';
export const BUNDLE = join(BUNDLE_DIR, 'kestreld.cjs');
/** How the bundle's first line starts: the rest of it names the build (bin/load-bundle.js keys its caches by it). */
export const BUNDLE_ID_PREFIX = '// kestrel bundle ';
/** The bundle's entry, relative to dist/. */
export const BUNDLE_ENTRY = join('cli', 'index.js');
/** What else decides the output besides the sources. */
export const INPUTS = ['tsconfig.json', 'package-lock.json', 'scripts/build.mjs'].map((f) => join(ROOT, f));

/** Whether `name` is a source the build compiles: tests, test support (`*.testing.ts`) and declarations are not. */
export function isBuiltSource(name) {
  return name.endsWith('.ts') && !/\.(test|testing|d)\.ts$/.test(name);
}

/** Calls `visit` with the path of every source below `dir` that the build compiles. */
function eachSource(dir, visit) {
  // Paths joined by hand: path.join's normalisation of ~350 paths was most of a launch's freshness check.
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = dir + sep + e.name;
    if (e.isDirectory()) eachSource(p, visit);
    else if (isBuiltSource(e.name)) visit(p);
  }
}

/** Every source below `dir` that the build compiles. */
export function sources(dir, out = []) {
  eachSource(dir, (p) => out.push(p));
  return out;
}

/**
 * Why `dist` is not a build of `src` as it is now (no build, another file list, a source or build input newer than
 * the build), or undefined when it is: a stat of each file, one pass. Without `src` (a package shipped without its
 * sources) only the build's presence counts.
 */
export function staleReason(src = SRC, dist = DIST) {
  const STAMP = join(dist, '.built');
  if (!existsSync(STAMP)) return `no build in ${dist}`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return `unreadable build stamp ${STAMP}`;
  }
  const hasSrc = existsSync(src);
  // A build from before the bundle existed, or a bundle deleted by hand. An installed package (no src/) runs the
  // bundle and nothing else.
  const wantsBundle = !hasSrc || existsSync(join(src, BUNDLE_ENTRY.replace(/\.js$/, '.ts')));
  if (wantsBundle && !existsSync(join(dist, BUNDLE))) return `no bundle ${join(dist, BUNDLE)}`;
  if (!hasSrc) return undefined;
  const built = statSync(STAMP).mtimeMs;
  let count = 0;
  let newer;
  eachSource(src, (f) => {
    count++;
    if (newer === undefined && statSync(f).mtimeMs > built) newer = f;
  });
  if (count !== stamp.count) return `the sources in ${src} are not the ones built (files added or removed)`;
  newer ??= INPUTS.find((f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs > built);
  return newer ? `${relative(process.cwd(), newer) || newer} changed since the last build` : undefined;
}

/** Whether `dist` is older than a source (or the file list changed). */
export function isStale(src = SRC, dist = DIST) {
  return staleReason(src, dist) !== undefined;
}
