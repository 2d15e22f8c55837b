// Whether dist/ holds a build of the sources as they are now: plain Node, no devDependency, so the launcher
// (bin/kestreld.js) can refuse a missing or stale build at run time and the build step (scripts/build.mjs) can
// decide whether to rebuild, both by the same rule.
const { existsSync, readdir, readdirSync, readFileSync, stat, statSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

/** The repository (or installed package) root. */
const ROOT = join(__dirname, '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
/** Where the bundle goes, relative to dist/ (pruning leaves it alone), and the bundle there. */
const BUNDLE_DIR = 'bundle';
const BUNDLE = join(BUNDLE_DIR, 'kestreld.cjs');
/** How the bundle's first line starts: the rest of it names the build (bin/load-bundle.js keys its caches by it). */
const BUNDLE_ID_PREFIX = '// kestrel bundle ';
/** The bundle's entry, relative to dist/. */
const BUNDLE_ENTRY = join('cli', 'index.js');
/** What else decides the output besides the sources. */
const INPUTS = ['tsconfig.json', 'package-lock.json', 'scripts/build.mjs'].map((f) => join(ROOT, f));

/** Whether `name` is a source the build compiles: tests, test support (`*.testing.ts`) and declarations are not. */
function isBuiltSource(name) {
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
function sources(dir, out = []) {
  eachSource(dir, (p) => out.push(p));
  return out;
}

/**
 * The checks that need no walk of the sources: the reason `dist` is no build (no stamp, no bundle), or, when
 * `src` exists, what the walk compares against (the stamp's time and file count); `{}` for a build without sources.
 */
function stampState(src, dist) {
  const STAMP = join(dist, '.built');
  if (!existsSync(STAMP)) return { reason: `no build in ${dist}` };
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return { reason: `unreadable build stamp ${STAMP}` };
  }
  const hasSrc = existsSync(src);
  // A build from before the bundle existed, or a bundle deleted by hand. An installed package (no src/) runs the
  // bundle and nothing else.
  const wantsBundle = !hasSrc || existsSync(join(src, BUNDLE_ENTRY.replace(/\.js$/, '.ts')));
  if (wantsBundle && !existsSync(join(dist, BUNDLE))) return { reason: `no bundle ${join(dist, BUNDLE)}` };
  if (!hasSrc) return {};
  return { built: statSync(STAMP).mtimeMs, count: stamp.count };
}

/** The verdict once the sources were walked: `count` of them, `newer` the first one newer than the build. */
function walkVerdict(src, state, count, newer) {
  if (count !== state.count) return `the sources in ${src} are not the ones built (files added or removed)`;
  newer ??= INPUTS.find((f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs > state.built);
  return newer ? `${relative(process.cwd(), newer) || newer} changed since the last build` : undefined;
}

/**
 * Why `dist` is not a build of `src` as it is now (no build, another file list, a source or build input newer than
 * the build), or undefined when it is: a stat of each file, one pass. Without `src` (a package shipped without its
 * sources) only the build's presence counts.
 */
function staleReason(src = SRC, dist = DIST) {
  const state = stampState(src, dist);
  if (state.built === undefined) return state.reason;
  let count = 0;
  let newer;
  eachSource(src, (f) => {
    count++;
    if (newer === undefined && statSync(f).mtimeMs > state.built) newer = f;
  });
  return walkVerdict(src, state, count, newer);
}

/**
 * staleReason by the same rule, its directory reads and stats done on libuv's thread pool: the launcher starts it
 * first and awaits it before the bundle runs, so the walk overlaps reading and compiling the bundle instead of
 * preceding them on the main thread. An error reading the tree (a file removed during the walk) is a reason too.
 */
function staleReasonAsync(src = SRC, dist = DIST) {
  const state = stampState(src, dist);
  if (state.built === undefined) return Promise.resolve(state.reason);
  return new Promise((resolve) => {
    let count = 0;
    let newer;
    let pending = 0;
    let failed;
    const done = () => {
      if (--pending > 0) return;
      if (failed !== undefined) resolve(`cannot read the sources in ${src}: ${failed.message}`);
      else resolve(walkVerdict(src, state, count, newer));
    };
    const visitFile = (p) => {
      count++;
      pending++;
      stat(p, (err, st) => {
        if (err) failed ??= err;
        else if (st.mtimeMs > state.built && (newer === undefined || p < newer)) newer = p;
        done();
      });
    };
    const visitDir = (dir) => {
      pending++;
      readdir(dir, { withFileTypes: true }, (err, entries) => {
        if (err) failed ??= err;
        else
          for (const e of entries) {
            const p = dir + sep + e.name;
            if (e.isDirectory()) visitDir(p);
            else if (isBuiltSource(e.name)) visitFile(p);
          }
        done();
      });
    };
    visitDir(src);
  });
}

/** Whether `dist` is older than a source (or the file list changed). */
function isStale(src = SRC, dist = DIST) {
  return staleReason(src, dist) !== undefined;
}

module.exports = {
  ROOT,
  SRC,
  DIST,
  BUNDLE_DIR,
  BUNDLE,
  BUNDLE_ID_PREFIX,
  BUNDLE_ENTRY,
  INPUTS,
  isBuiltSource,
  sources,
  staleReason,
  staleReasonAsync,
  isStale,
};
