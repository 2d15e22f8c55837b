// The launcher's fast path: the TypeScript sources bundled into one ES module, cached on disk and checked
// against the sources' content on every start. Loading one module through Node's own loader is far cheaper
// than loading ~150 through module hooks, which run on a separate thread and see every import, node_modules
// included (measured: about 0.8 s of CPU of a 1.9 s start).
//
// The bundle keeps each source's own semantics: `import.meta.url` is replaced by the URL of the file it is
// written in, `import.meta.resolve('<literal>')` by what Node resolves it to, and bare imports by the file URL
// Node resolves them to (the bundle lives in the OS temp dir, where no node_modules could be found). Packages
// are not bundled: Node loads them as it would for the sources. Anything the bundle cannot express the same
// way fails the build, and the caller falls back to the per-file hooks (bin/ts-hooks.mjs).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin, SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Bundles older than this that are no longer the current one for their entry are removed on a rebuild. */
const STALE_MS = 60 * 60 * 1000;

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/**
 * An Error.prepareStackTrace that shows frames of bundles in `cacheDir` at their .ts source lines (V8's own
 * format otherwise). It stands in for process.setSourceMapsEnabled(true), which would make Node scan every module
 * it loads for a source map and parse each one found (about 140 ms of CPU per start, node_modules included);
 * this reads a bundle's map only when a stack through it is formatted.
 */
export function bundleStackFormatter(cacheDir = defaultCacheDir()) {
  const prefix = pathToFileURL(join(cacheDir, 'bundle-')).href;
  const maps = new Map();
  const mapOf = (file) => {
    if (!maps.has(file)) {
      let map = null;
      try {
        map = new SourceMap(JSON.parse(readFileSync(fileURLToPath(`${file}.map`), 'utf8')));
      } catch {
        // No map (or an unreadable one): the frame stays as it is.
      }
      maps.set(file, map);
    }
    return maps.get(file);
  };
  const frame = (site) => {
    const text = String(site);
    const file = site.getFileName();
    if (typeof file !== 'string' || !file.startsWith(prefix)) return text;
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    const entry = line && column ? mapOf(file)?.findEntry(line - 1, column - 1) : undefined;
    if (!entry?.originalSource) return text;
    const source = fileURLToPath(new URL(entry.originalSource, file));
    const at = `${file}:${line}:${column}`;
    const i = text.lastIndexOf(at);
    return i < 0
      ? text
      : `${text.slice(0, i)}${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}${text.slice(i + at.length)}`;
  };
  return (error, sites) => {
    let head;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return [head, ...sites.map((site) => `    at ${frame(site)}`)].join('\n');
  };
}

/** The directory both the hooks' and the bundle's caches live in (private to the user). */
export function defaultCacheDir() {
  return join(tmpdir(), `kestrel-ts-${process.getuid?.() ?? 'user'}`);
}

/** esbuild's options for the repository's TypeScript (the same compiler options the hooks use). */
function compilerOptions(tsconfigPath) {
  return JSON.parse(readFileSync(tsconfigPath, 'utf8')).compilerOptions;
}

/** What a manifest depends on besides the sources: the entry, the compiler options, esbuild and the lockfile. */
function manifestKey(entry, tsconfigPath, lockfilePath) {
  const esbuildVersion = JSON.parse(
    readFileSync(fileURLToPath(import.meta.resolve('esbuild/package.json')), 'utf8'),
  ).version;
  const lock = lockfilePath && existsSync(lockfilePath) ? sha256(readFileSync(lockfilePath)) : '';
  return sha256(JSON.stringify([2, entry, readFileSync(tsconfigPath, 'utf8'), esbuildVersion, lock]));
}

/** True when every source the bundle was built from still has the content it was built from. */
function manifestCurrent(manifest, cacheDir) {
  if (!existsSync(join(cacheDir, manifest.bundle, 'entry.mjs'))) return false;
  for (const [path, hash] of manifest.inputs) {
    let source;
    try {
      source = readFileSync(path);
    } catch {
      return false;
    }
    if (sha256(source) !== hash) return false;
  }
  return manifest.externals.every((url) => existsSync(fileURLToPath(url)));
}

/** The esbuild plugin that reads the sources (recording their hashes) and pins `import.meta` and bare imports. */
function sourcePlugin(inputs, externals) {
  return {
    name: 'kestrel-sources',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
        const url = import.meta.resolve(args.path);
        if (url.startsWith('file:')) externals.add(url);
        return { path: url, external: true };
      });
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const raw = readFileSync(args.path);
        inputs.set(args.path, sha256(raw));
        const url = pathToFileURL(args.path).href;
        const contents = raw
          .toString('utf8')
          .replace(/\bimport\.meta\.url\b/g, () => JSON.stringify(url))
          .replace(/\bimport\.meta\.resolve\(\s*(['"])([^'"]+)\1\s*\)/g, (_, _q, spec) =>
            JSON.stringify(import.meta.resolve(spec)),
          );
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Builds the bundle of `entry` and writes it (with its source maps) and its manifest to the cache. */
async function build(entry, tsconfigPath, cacheDir, manifestPath) {
  const esbuild = await import('esbuild');
  const inputs = new Map();
  const externals = new Set();
  // Modules imported with import() become chunks of their own, so their packages still load only when used.
  const result = await esbuild.build({
    entryPoints: { entry },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: join(cacheDir, 'bundle-staging'),
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    write: false,
    sourcemap: 'linked',
    sourcesContent: false,
    tsconfigRaw: { compilerOptions: compilerOptions(tsconfigPath) },
    plugins: [sourcePlugin(inputs, externals)],
    logLevel: 'silent',
  });
  const files = result.outputFiles.map((f) => ({ name: basename(f.path), text: f.text }));
  // Comments are gone from the output: what is left is a use the plugin did not pin, which would see the bundle's URL.
  if (files.some((f) => f.name.endsWith('.mjs') && /\bimport\.meta\b/.test(f.text))) {
    throw new Error("the sources use import.meta beyond .url and .resolve('<literal>')");
  }
  const hash = createHash('sha256');
  for (const f of files) hash.update(f.name).update('\0').update(f.text).update('\0');
  const bundle = `bundle-${hash.digest('hex').slice(0, 32)}`;
  if (!existsSync(join(cacheDir, bundle))) {
    // Written under a unique name and renamed, so concurrent starts never see a half-written bundle.
    const tmp = join(cacheDir, `tmp-${bundle}.${process.pid}.${Date.now()}`);
    mkdirSync(tmp, { mode: 0o700 });
    for (const f of files) writeFileSync(join(tmp, f.name), f.text, { mode: 0o600 });
    try {
      renameSync(tmp, join(cacheDir, bundle));
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      // Another start wrote the same bundle first.
      if (!existsSync(join(cacheDir, bundle))) throw e;
    }
  }
  const manifest = { bundle, inputs: [...inputs], externals: [...externals] };
  const tmpManifest = `${manifestPath}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmpManifest, JSON.stringify(manifest), { mode: 0o600 });
  renameSync(tmpManifest, manifestPath);
  return manifest;
}

/** Removes bundles (of any checkout) that no start has written or read for a while. */
function pruneStale(cacheDir, keep) {
  const now = Date.now();
  for (const f of readdirSync(cacheDir)) {
    if (!(f.startsWith('bundle-') || f.startsWith('tmp-bundle-')) || f === keep) continue;
    const path = join(cacheDir, f);
    try {
      const st = statSync(join(path, 'entry.mjs'), { throwIfNoEntry: false }) ?? statSync(path);
      if (now - st.atimeMs > STALE_MS && now - st.mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another start removed it first.
    }
  }
}

/**
 * Imports `entry` (a .ts file) from its cached bundle, building the bundle first when a source changed.
 * Returns undefined when the bundle cannot be built (a syntax error, an unwritable cache, ...): the caller then
 * loads the sources through the hooks, which report the error as they always did.
 */
export async function importBundled(
  entry,
  { tsconfigPath, lockfilePath, cacheDir = defaultCacheDir() },
  retried = false,
) {
  let manifest;
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const manifestPath = join(cacheDir, `manifest-${manifestKey(entry, tsconfigPath, lockfilePath)}.json`);
    try {
      manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (!manifestCurrent(manifest, cacheDir)) manifest = undefined;
    } catch {
      manifest = undefined;
    }
    if (!manifest) {
      manifest = await build(entry, tsconfigPath, cacheDir, manifestPath);
      pruneStale(cacheDir, manifest.bundle);
    }
  } catch {
    return undefined;
  }
  const bundle = join(cacheDir, manifest.bundle, 'entry.mjs');
  try {
    return await import(pathToFileURL(bundle).href);
  } catch (e) {
    // Only a bundle removed between the check and the import (a prune by another start) is retried; an error
    // thrown while the sources run is theirs to report.
    if (retried || existsSync(bundle)) throw e;
    return importBundled(entry, { tsconfigPath, lockfilePath, cacheDir }, true);
  }
}
