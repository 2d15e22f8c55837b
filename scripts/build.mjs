// The build step: compiles src/**/*.ts (tests and `*.testing.ts` test support excluded) file by file into dist/
// with esbuild, relative `.ts` imports rewritten to `.js`, so the node runs with plain `node` and no TypeScript
// loader (tracer workers included). dist/ mirrors src/ one level below the repository root, so `new URL('../../proto/', import.meta.url)`
// and friends resolve as they do from the sources. Then dist/cli/index.js and what it imports, the pure-JavaScript
// packages included, become one CommonJS bundle, dist/bundle/kestreld.cjs, since Node 20's module loader spent
// ~250 ms of CPU at startup resolving, reading and linking ~500 modules one by one. Code behind a dynamic import()
// is in the file but runs only on first use. One script (not ES modules) because a script can be compiled with a
// V8 code cache on Node 20 too (bin/load-bundle.js). `node scripts/build.mjs` builds when a source is newer than
// the last build; `--force` always does. `npm ci` and `npm pack` both run it (the `prepare` script, forced; no
// `prepack` besides, which would build twice), and the tarball ships bin/, dist/ and proto/ (package.json's `files`):
// an `npm i -g` of it runs the bundle with neither sources nor devDependencies (test/integration/globalInstall.test.ts).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BUNDLE,
  BUNDLE_DIR,
  BUNDLE_ID_PREFIX,
  BUNDLE_ENTRY,
  DIST,
  isStale,
  ROOT,
  SRC,
  sources,
  staleReason,
  staleReasonAsync,
} from '../bin/build-state.js';
import { asciiScript, isAsciiText } from './asciiBundle.mjs';

// The launcher checks the build with the same rule (bin/build-state.js); the tests import it from here.
export { isStale, staleReason, staleReasonAsync };

/**
 * Packages the bundle leaves to Node's loader: native addons, WebAssembly packages, and the gRPC proto tooling
 * (proto-loader, reflection), which only the lazily loaded reflection uses.
 */
const EXTERNAL = [
  '@grpc/proto-loader',
  '@grpc/reflection',
  '@jitl/*',
  '@trufflesuite/uws-js-unofficial',
  'bufferutil',
  'c-kzg',
  'mcl-wasm',
  'quickjs-emscripten',
  'utf-8-validate',
];

// esbuild prints relative specifiers in double quotes in these three forms.
const TS_SPECIFIER = /((?:\bfrom|\bimport)\s*\(?\s*)"(\.{1,2}\/[^"]*?)\.ts"/g;

/** Compiles every source of `src` into `dist` (each file written beside, then renamed in: readers see whole files). */
export async function build(src = SRC, dist = DIST) {
  const { transform } = await import('esbuild');
  const tsconfigRaw = readFileSync(join(ROOT, 'tsconfig.json'), 'utf8');
  const files = sources(src);
  const started = Date.now();
  await Promise.all(
    files.map(async (file) => {
      const rel = relative(src, file);
      const out = join(dist, rel.replace(/\.ts$/, '.js'));
      const { code } = await transform(readFileSync(file, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        platform: 'node',
        target: 'node20',
        sourcefile: rel,
        tsconfigRaw,
      });
      mkdirSync(dirname(out), { recursive: true });
      const tmp = `${out}.${process.pid}.tmp`;
      writeFileSync(tmp, code.replace(TS_SPECIFIER, '$1"$2.js"'));
      renameSync(tmp, out);
    }),
  );
  // Files whose source is gone would still be importable: drop them.
  const want = new Set(files.map((f) => join(dist, relative(src, f).replace(/\.ts$/, '.js'))));
  const prune = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== join(dist, BUNDLE_DIR)) prune(p);
      } else if (p.endsWith('.js') && !want.has(p)) rmSync(p, { force: true });
    }
  };
  prune(dist);
  if (existsSync(join(dist, BUNDLE_ENTRY))) await bundle(dist);
  writeFileSync(join(dist, '.built'), JSON.stringify({ count: files.length, ms: Date.now() - started }) + '\n');
  return files.length;
}

/**
 * Each bundled module keeps its own location: `import.meta.url` in ES modules, `__dirname` and `__filename` in
 * CommonJS ones (grpc-js finds its .proto files with them, classic-level and secp256k1 their native addons) become
 * the file it was bundled from. Kestrel's own files are found relative to the bundle's directory (the banner's
 * __bundleUrl): dist/ ships with the bundle. A package's file is found where Node's resolver finds that package
 * from the bundle at run time (__bundlePackageFile), not where it was at build time: an installed package
 * (`npm i -g` of the packed tarball) has its dependencies nested or hoisted, and a checkout whose node_modules is a
 * symbolic link resolves them elsewhere.
 */
function ownLocation(outdir) {
  // Where the packages the bundle is made of sit at build time (through a symbolic link, esbuild reports the real
  // path).
  const modules = realpathSync(join(ROOT, 'node_modules')) + sep;
  return {
    name: 'own-location',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
        let code = readFileSync(args.path, 'utf8');
        const hasUrl = code.includes('import.meta.url');
        const hasDir = /\b__(dirname|filename)\b/.test(code);
        let unchanged = true;
        if (!isAsciiText(code)) {
          // The bundle in ASCII: bin/load-bundle.js then reads it as Latin-1 (scripts/asciiBundle.mjs).
          const made = await asciiScript(code);
          if (made.kept !== undefined) console.warn(`dist/: ${args.path} keeps non-ASCII text: ${made.kept}`);
          unchanged = made.kept !== undefined;
          code = made.text;
        }
        if (!hasUrl && !hasDir && unchanged) return undefined;
        const rel = JSON.stringify(relative(outdir, args.path).split(sep).join('/'));
        let url = `new URL(${rel}, __bundleUrl).href`;
        let file = `__bundleFileURLToPath(new URL(${rel}, __bundleUrl))`;
        if (args.path.startsWith(modules)) {
          // `<package>/<path inside it>`, a scoped package's name being two segments.
          const parts = args.path.slice(modules.length).split(sep);
          const n = parts[0].startsWith('@') ? 2 : 1;
          const name = JSON.stringify(parts.slice(0, n).join('/'));
          const inside = JSON.stringify(parts.slice(n).join('/'));
          file = `__bundlePackageFile(${name}, ${inside}, () => ${file})`;
          url = `__bundlePathToFileURL(${file}).href`;
        }
        if (hasUrl) code = code.replaceAll('import.meta.url', url);
        if (hasDir) code = `var __filename = ${file}, __dirname = __bundleDirname(__filename);\n` + code;
        return { contents: code, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * Bundles dist/cli/index.js with its packages (EXTERNAL excepted) into dist/bundle/kestreld.cjs: one CommonJS
 * script, strict like the ES modules it is made of, whose `main` bin/kestreld.js calls. A module reached only by
 * a dynamic import() runs on first use. Files of earlier builds (and their code caches) are removed.
 */
export async function bundle(dist = DIST) {
  const { build: esbuild } = await import('esbuild');
  const outdir = join(dist, BUNDLE_DIR);
  const out = join(dist, BUNDLE);
  const { outputFiles } = await esbuild({
    entryPoints: [join(dist, BUNDLE_ENTRY)],
    outfile: out,
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    banner: {
      js: [
        "'use strict';",
        "const { dirname: __bundleDirname, join: __bundleJoin } = require('node:path');",
        "const { fileURLToPath: __bundleFileURLToPath, pathToFileURL: __bundlePathToFileURL } = require('node:url');",
        "const { existsSync: __bundleExists } = require('node:fs');",
        'const __bundleUrl = __bundlePathToFileURL(__filename).href;',
        // The first directory Node's resolver would take package `name` from, seen from the bundle.
        'const __bundlePackageFile = (name, inside, otherwise) => {',
        '  for (const dir of require.resolve.paths(name) ?? []) {',
        '    if (__bundleExists(__bundleJoin(dir, name, "package.json"))) return __bundleJoin(dir, name, inside);',
        '  }',
        '  return otherwise();',
        '};',
      ].join('\n'),
    },
    plugins: [ownLocation(outdir)],
    logLevel: 'error',
  });
  mkdirSync(outdir, { recursive: true });
  const [file] = outputFiles;
  const tmp = `${out}.${process.pid}.tmp`;
  // ASCII (each module made so as it was loaded, see ownLocation), so the launcher reads it as Latin-1.
  const text = file.text;
  if (!isAsciiText(text)) console.warn('dist/: the bundle keeps non-ASCII text (see above): it loads as UTF-8');
  // The first line names the build by its contents: the code caches are keyed by it (bin/load-bundle.js), not by
  // the file's date, which an install from the packed tarball does not keep.
  const id = createHash('sha256').update(text).digest('hex').slice(0, 16);
  writeFileSync(tmp, `${BUNDLE_ID_PREFIX}${id}\n${text}`);
  renameSync(tmp, out);
  for (const name of readdirSync(outdir)) {
    if (!name.endsWith('.tmp') && join(outdir, name) !== out) rmSync(join(outdir, name), { force: true });
  }
  seed(out);
}

/**
 * Seeds the code cache of `start` runs (bin/load-bundle.js seedCache) in a Node process of its own, where the
 * bundle's top level runs: the first start after a build then does not compile it all (the first start of a fresh
 * clone). Failures are ignored: the cache only saves time, and the first run writes its own.
 */
function seed(out) {
  const loader = pathToFileURL(join(ROOT, 'bin', 'load-bundle.js')).href;
  const code = `import { seedCache } from ${JSON.stringify(loader)}; seedCache(${JSON.stringify(out)}, 'start'); process.exit(0);`;
  spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    stdio: 'ignore',
    timeout: 60_000,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
}

/** Builds when stale; true if it did. */
export async function ensureBuilt() {
  if (!isStale()) return false;
  await build();
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t = Date.now();
  if (process.argv.includes('--force') || isStale()) {
    const n = await build();
    console.log(`dist/: ${n} modules compiled in ${Date.now() - t} ms`);
  }
}
