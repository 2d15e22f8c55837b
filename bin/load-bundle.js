// Loads the node's bundle (dist/bundle/kestreld.cjs, one CommonJS script, see scripts/build.mjs) with a V8 code
// cache beside it: compiling ~3.7 MB of JavaScript and the functions a start runs was about a third of the CPU
// before the first answer, and Node 20 has no compile cache of its own for modules (module.enableCompileCache is
// Node >= 22.1). The cache is written once per build, Node version, architecture and kind of command (`start` or
// the client commands, which run other code): half a second after the command settled (`start`: once the node
// listens), or at exit if sooner, so it holds the functions such a run compiled; a run that ends before it
// settles (a start that failed) writes an early cache apart, used only until a settled run has written its own. A cache V8 rejects (other V8 flags)
// is rewritten; a rebuild removes the caches and seeds one for `start` (the bundle's top level compiled, see
// seedCache), which a start uses until it has written its own; the packed tarball ships that seed, so an installed
// package whose directory is not writable (a root-owned global install) still starts from it. Without vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
// (Node < 20.12; an import() left in the script would need it) the bundle loads with require(), as any CommonJS
// file.
const { readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createRequire, Module } = require('node:module');
const { basename, dirname, join } = require('node:path');
const { setFlagsFromString } = require('node:v8');
const vm = require('node:vm');
// Node >= 19.6 (engines: >= 20.19); absent, the bundle is read as UTF-8.
const { isAscii } = require('node:buffer');
const { BUNDLE_ID_PREFIX } = require('./build-state.js');

/**
 * V8 flags a `start` runs with, set before its bundle is compiled. V8 rejects a code cache made under other flags
 * than the loading process has, and the node sets --heap-growing-percent from [cache] heap-growth-percent (default
 * 20, src/config/load.ts) once it has read its config: a cache written after that was rejected by every next start
 * (a full compile, 300-500 ms of CPU on a busy 2-core machine). Set here first, the node's own setting to the default
 * changes nothing; another configured value still costs that compile.
 */
const START_V8_FLAGS = ['--heap-growing-percent=20'];

/** Delay from a run's steady state to writing its cache: past a start's first answers. */
const CACHE_DELAY_MS = 500;
/**
 * The cache file of the bundle `file` whose text is `source`, for this Node and `kind` of run: another build (its
 * first line names it, see scripts/build.mjs) or another Node names another. Not the file's date: an install of the
 * packed tarball dates its files at install time, and the build's seed must still be found.
 */
function cachePath(file, source, kind) {
  const line = source.slice(0, source.indexOf('\n'));
  let build;
  if (line.startsWith(BUNDLE_ID_PREFIX)) build = line.slice(BUNDLE_ID_PREFIX.length);
  else {
    // A bundle from before builds were named.
    const { size, mtimeMs } = statSync(file);
    build = `${size}-${Math.trunc(mtimeMs)}`;
  }
  return join(dirname(file), `.code-cache-${basename(file)}-${process.version}-${process.arch}-${build}-${kind}`);
}

/** The cache the build seeds for `path` (scripts/build.mjs): used until a run has written its own. */
function seedPath(path) {
  return `${path}-seed`;
}

/**
 * The cache of a run that ended before it settled (a start that failed to listen, say): kept apart from `path`,
 * since it holds only what that run compiled (a third of a settled start's cache, and ~8 ms more CPU on every next
 * start that loaded it in place of a full one); used until a run that settles writes `path`.
 */
function earlyPath(path) {
  return `${path}-early`;
}

/**
 * The bundle's text. The build writes it in ASCII (scripts/asciiBundle.mjs), which reads as Latin-1 into a one-byte
 * string: decoding 4 MB as UTF-8 was ~20 ms of a start. Any other text (a bundle the build could not make ASCII) is
 * decoded as UTF-8.
 */
function readSource(file) {
  const bytes = readFileSync(file);
  return isAscii?.(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
}

function readOrUndefined(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Writes `script`'s code cache to `path` through a temporary file (a concurrent start reads a whole cache or none).
 * Failures are ignored: the cache only saves time.
 */
function writeCache(script, path) {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, path);
  } catch {
    // A read-only install, a full disk: run without a cache.
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* nothing was written */
    }
  }
}

/** A loaded bundle. */
class LoadedBundle {
  constructor(exports, saveCache) {
    /** The bundle's exports. */
    this.exports = exports;
    this.saveCache = saveCache;
  }

  /**
   * Called once the command reached its steady state (`start`: the node listens): the cache, if this run writes
   * one, is written a little later, so it holds the functions that state needed but not the first requests' time.
   */
  settled() {
    this.saveCache?.();
  }
}

/**
 * Loads the CommonJS bundle `file`, compiled with its code cache for runs of `kind` when this Node allows one
 * (KESTREL_CODE_CACHE=0 turns the cache off).
 */
function loadBundle(file, kind) {
  return compileBundle(file, kind).run();
}

/**
 * Compiles the bundle `file` as loadBundle does, without running it: `run()` then runs it once and returns the
 * LoadedBundle (the launcher checks the build's freshness between the two).
 */
function compileBundle(file, kind) {
  if (kind === 'start') for (const flag of START_V8_FLAGS) setFlagsFromString(flag);
  const importer = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (importer === undefined || process.env.KESTREL_CODE_CACHE === '0') {
    return { run: () => new LoadedBundle(require(file)) };
  }
  const source = readSource(file);
  const path = cachePath(file, source, kind);
  const own = readOrUndefined(path);
  const early = own === undefined ? readOrUndefined(earlyPath(path)) : undefined;
  // Without a run's own cache, an early one, else the build's seed (the bundle's top level compiled): better than
  // compiling it all.
  const cachedData = own ?? early ?? readOrUndefined(seedPath(path));
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: importer,
  });
  const rewrite = own === undefined || script.cachedDataRejected;
  // A run that ends before it settles leaves an early cache when there is none it could use.
  const writeEarly = own === undefined && (early === undefined || script.cachedDataRejected);
  return {
    run() {
      let saveCache;
      if (rewrite) {
        let settled = false;
        let written = false;
        const write = (to) => {
          if (!written) writeCache(script, to);
          written = true;
        };
        process.once('exit', () => {
          if (settled) write(path);
          else if (writeEarly) write(earlyPath(path));
        });
        saveCache = () => {
          settled = true;
          setTimeout(() => write(path), CACHE_DELAY_MS).unref();
        };
      }
      return new LoadedBundle(run(script, file), saveCache);
    },
  };
}

/** Runs the compiled bundle `script` of `file` as a CommonJS module; returns its exports. */
function run(script, file) {
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(mod.exports, createRequire(file), mod, file, dirname(file));
  mod.loaded = true;
  return mod.exports;
}

/**
 * Writes the seed cache of `file` for runs of `kind` (the build calls it in a process of its own, right after
 * bundling): the functions the bundle's top level compiles, so the first run after a build does not compile them
 * all; that run then writes its own, fuller cache. A no-op where this Node has no code cache for the bundle.
 */
function seedCache(file, kind) {
  const importer = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (importer === undefined) return;
  if (kind === 'start') for (const flag of START_V8_FLAGS) setFlagsFromString(flag);
  const source = readSource(file);
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    importModuleDynamically: importer,
  });
  run(script, file);
  writeCache(script, seedPath(cachePath(file, source, kind)));
}

module.exports = { START_V8_FLAGS, LoadedBundle, loadBundle, compileBundle, seedCache };
