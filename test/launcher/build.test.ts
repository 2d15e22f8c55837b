// The build step (scripts/build.mjs): plain JavaScript with `.js` specifiers, rebuilt when a source changes, one
// bundle of the CLI (loaded with a code cache), and a compiled node that runs without any TypeScript loader (tracer workers included).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { asciiScript } from '../../scripts/asciiBundle.mjs';
import { build, isStale, staleReason, staleReasonAsync } from '../../scripts/build.mjs';
import { REPO_ROOT } from '../helpers/node.ts';

const dir = mkdtempSync(join(tmpdir(), 'kestrel-build-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const src = join(dir, 'src');
const dist = join(dir, 'dist');
const write = (name: string, text: string) => writeFileSync(join(src, name), text);

describe('build step', () => {
  it('compiles each source to JavaScript with its relative imports pointing at .js files', async () => {
    mkdirSync(join(src, 'lib'), { recursive: true });
    write('lib/value.ts', `export const value: number = 1;\nexport type Unused = string;\n`);
    write(
      'entry.ts',
      [
        `import { value } from './lib/value.ts';`,
        `import type { Unused } from './lib/value.ts';`,
        `export const lazy = () => import('./lib/value.ts').then((m) => m.value);`,
        `export const self: Unused = import.meta.url;`,
        `export { value };`,
      ].join('\n'),
    );
    write('entry.test.ts', `throw new Error('tests are not compiled');\n`);
    assert.equal(isStale(src, dist), true);
    assert.equal(await build(src, dist), 2);
    assert.equal(isStale(src, dist), false);
    const code = readFileSync(join(dist, 'entry.js'), 'utf8');
    assert.doesNotMatch(code, /\.ts['"]/);
    const m = (await import(pathToFileURL(join(dist, 'entry.js')).href)) as Record<string, unknown>;
    assert.equal(m.value, 1);
    assert.equal(await (m.lazy as () => Promise<number>)(), 1);
    assert.equal(m.self, pathToFileURL(join(dist, 'entry.js')).href);
  });

  it('is stale again when a source is newer than the build or a file comes or goes', async () => {
    const later = new Date(Date.now() + 5000);
    utimesSync(join(src, 'lib/value.ts'), later, later);
    assert.equal(isStale(src, dist), true);
    await build(src, dist);
    utimesSync(join(dist, '.built'), later, later);
    assert.equal(isStale(src, dist), false);
    assert.equal(await staleReasonAsync(src, dist), undefined);
    utimesSync(join(src, 'lib/value.ts'), new Date(Date.now() + 9000), new Date(Date.now() + 9000));
    // The launcher's check, on the thread pool, gives the same verdict.
    assert.match((await staleReasonAsync(src, dist)) ?? '', /value\.ts changed since the last build$/);
    assert.equal(await staleReasonAsync(src, join(dir, 'none')), `no build in ${join(dir, 'none')}`);
    utimesSync(join(dist, '.built'), later, later);
    write('extra.ts', `export {};\n`);
    assert.equal(isStale(src, dist), true);
    assert.match((await staleReasonAsync(src, dist)) ?? '', /files added or removed/);
  });

  it('bundles cli/index.js into bundle/kestreld.cjs, each module keeping its own import.meta.url', async () => {
    mkdirSync(join(src, 'cli'), { recursive: true });
    write(
      'cli/index.ts',
      [
        `export { self, value } from '../entry.ts';`,
        `export const here = import.meta.url;`,
        `export const lazy = () => import('../lib/value.ts').then((m) => m.value);`,
        // ES modules are strict; the bundle, a script, must be too.
        `export const strict = (function (this: unknown) { return this === undefined; })();`,
      ].join('\n'),
    );
    await build(src, dist);
    const m = createRequire(import.meta.url)(join(dist, 'bundle/kestreld.cjs')) as Record<string, unknown>;
    assert.equal(m.value, 1);
    assert.equal(await (m.lazy as () => Promise<number>)(), 1);
    assert.equal(m.strict, true);
    assert.equal(m.self, pathToFileURL(join(dist, 'entry.js')).href);
    assert.equal(m.here, pathToFileURL(join(dist, 'cli/index.js')).href);
    const later = new Date(Date.now() + 10_000);
    utimesSync(join(dist, '.built'), later, later);
    assert.equal(isStale(src, dist), false);
    rmSync(join(dist, 'bundle/kestreld.cjs'));
    assert.equal(isStale(src, dist), true);
  });

  it('loads the bundle with a code cache written by the first run and used by the next; the build seeds one for starts', async () => {
    await build(src, dist);
    const file = join(dist, 'bundle/kestreld.cjs');
    const run = (kind = 'test') =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { loadBundle } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'bin/load-bundle.js')).href)});` +
            `console.log(loadBundle(${JSON.stringify(file)}, ${JSON.stringify(kind)}).exports.value);`,
        ],
        { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
      ).trim();
    const all = () => readdirSync(join(dist, 'bundle')).filter((f) => f.startsWith('.code-cache-'));
    const caches = () => all().filter((f) => !f.endsWith('-seed'));
    // The build seeds the cache of `start` runs (its top level compiled), and only that.
    assert.deepEqual(
      all().map((f) => f.replace(/-v\d.*-(start-seed)$/, '-$1')),
      ['.code-cache-kestreld.cjs-start-seed'],
    );
    assert.deepEqual(caches(), []);
    // These runs end without settling (loadBundle's caller never says it did): each leaves an early cache, apart
    // from the one a settled run writes.
    assert.equal(run(), '1');
    assert.deepEqual(
      caches().map((f) => f.replace(/-v\d.*-(test-early)$/, '-$1')),
      ['.code-cache-kestreld.cjs-test-early'],
    );
    const written = statSync(join(dist, 'bundle', caches()[0]!)).mtimeMs;
    assert.equal(run(), '1');
    assert.equal(statSync(join(dist, 'bundle', caches()[0]!)).mtimeMs, written, 'an accepted cache is not rewritten');
    // A run that settles writes its own cache, which the next runs load instead of the early one.
    const settledRun = (kind: string) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { compileBundle } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'bin/load-bundle.js')).href)});` +
            `const b = compileBundle(${JSON.stringify(file)}, ${JSON.stringify(kind)}).run(); b.settled();` +
            `console.log(b.exports.value); setTimeout(() => {}, 700);`,
        ],
        { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
      ).trim();
    assert.equal(settledRun('test'), '1');
    assert.equal(caches().filter((f) => f.endsWith('-test')).length, 1);
    // A start loads with the seed and, settled, writes its own, fuller cache beside it.
    assert.equal(settledRun('start'), '1');
    assert.equal(caches().filter((f) => f.endsWith('-start')).length, 1);
    assert.equal(all().length, 4);
    // A rebuild removes the caches of the bundle it replaces (and seeds its own).
    await build(src, dist);
    assert.deepEqual(caches(), []);
    assert.equal(all().length, 1);
  });

  it("keeps a start's code cache valid when the node then sets its heap flag: the next start accepts it", async () => {
    await build(src, dist);
    const file = join(dist, 'bundle/kestreld.cjs');
    const loader = JSON.stringify(pathToFileURL(join(REPO_ROOT, 'bin/load-bundle.js')).href);
    // What `kestreld start` does: load the bundle, set --heap-growing-percent to [cache]'s default (20), listen.
    const start = () =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { compileBundle } = await import(${loader});` +
            `const b = compileBundle(${JSON.stringify(file)}, 'start').run();` +
            `(await import('node:v8')).setFlagsFromString('--heap-growing-percent=20');` +
            // Listening: the cache is written half a second later.
            `b.settled(); setTimeout(() => {}, 700);`,
        ],
        { env: { ...process.env, NODE_OPTIONS: '' } },
      );
    const own = () => readdirSync(join(dist, 'bundle')).filter((f) => f.endsWith('-start'));
    start();
    assert.equal(own().length, 1);
    const written = statSync(join(dist, 'bundle', own()[0]!)).mtimeMs;
    start();
    // A rejected cache would be rewritten.
    assert.equal(statSync(join(dist, 'bundle', own()[0]!)).mtimeMs, written, 'the start cache was rejected');
  });

  it('leaves test support (*.testing.ts) out, and says why a build is stale', async () => {
    write('lib/helper.testing.ts', `export const helper = 1;\n`);
    const staleDir = join(dir, 'no-build');
    assert.match(staleReason(src, staleDir) ?? '', /^no build in /);
    await build(src, dist);
    assert.equal(existsSync(join(dist, 'lib/helper.testing.js')), false);
    // Earlier tests dated sources ahead of the clock: date the build after them.
    const built = new Date(Date.now() + 30_000);
    utimesSync(join(dist, '.built'), built, built);
    assert.equal(staleReason(src, dist), undefined);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(src, 'lib/value.ts'), later, later);
    assert.match(staleReason(src, dist) ?? '', /value\.ts changed since the last build$/);
  });

  it('without sources (an installed package) is current when the build and its bundle are there, else not', async () => {
    await build(src, dist);
    const none = join(dir, 'no-sources');
    assert.equal(staleReason(none, dist), undefined);
    rmSync(join(dist, 'bundle/kestreld.cjs'));
    assert.match(staleReason(none, dist) ?? '', /^no bundle /);
    rmSync(join(dist, '.built'));
    assert.match(staleReason(none, dist) ?? '', /^no build in /);
  });

  it('launches without the build script or esbuild: the launcher imports only bin/ and node: modules', () => {
    // CommonJS, so a start does not load Node's ES module loader.
    assert.equal(JSON.parse(readFileSync(join(REPO_ROOT, 'bin/package.json'), 'utf8')).type, 'commonjs');
    for (const file of ['bin/kestreld.js', 'bin/launch.js', 'bin/build-state.js', 'bin/load-bundle.js']) {
      const code = readFileSync(join(REPO_ROOT, file), 'utf8');
      const specifiers = [...code.matchAll(/\b(?:require\(|import\(|from )'([^']+)'/g)].map((m) => m[1]!);
      assert.ok(specifiers.length > 0, `${file} loads nothing?`);
      for (const s of specifiers) assert.match(s, /^(node:|\.\/)/, `${file} imports ${s}`);
    }
  });

  it('runs the repository node from dist/ with plain node: no loader, the worker boots compiled JavaScript', () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT });
    const boot = readFileSync(join(REPO_ROOT, 'dist/primitives/workerBoot.js'), 'utf8');
    assert.match(boot, /'\.\/entry\.js'|"\.\/entry\.js"/);
    const out = execFileSync(
      process.execPath,
      ['bin/kestreld.js', 'debug', 'addr', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE_OPTIONS: '' },
        encoding: 'utf8',
      },
    );
    assert.match(out, /kestrel1/);
  });
});

describe('ASCII bundle', () => {
  it('escapes non-ASCII text where an escape means the same, and keeps text where it would not', async () => {
    const program = [
      '// a comment: µ ⋅ 😀',
      'const s = "µ\\\\µ\\µ😀";',
      'const re = /(\\d+)(µs|μs)/y;',
      'const astral = /😀+/u;',
      'class A {',
      '  /** µ */',
      '  get v() {',
      '    return [s, re.exec("5µs")?.[2], astral.test("😀😀"), `t⋅${s.length}`];',
      '  }',
      '}',
      'module.exports = new A().v;',
    ].join('\n');
    const { text, kept } = await asciiScript(program);
    assert.equal(kept, undefined);
    assert.doesNotMatch(text, /[\u0080-\uffff]/);
    const run = (code: string) => {
      const m = { exports: undefined as unknown };
      new Function('module', code)(m);
      return m.exports;
    };
    assert.deepEqual(run(text), run(program));
    assert.deepEqual(run(program), ['µ\\µµ😀', 'µs', true, 't⋅6']);
    // A tagged template's raw text would change: kept, with the reason.
    const tagged = 'module.exports = String.raw`⋅`;';
    assert.deepEqual(await asciiScript(tagged), {
      text: tagged,
      kept: 'a tagged template holds a non-ASCII character at 28',
    });
  });

  it("the build writes the bundle in ASCII, and the launcher's reader loads it the same", async () => {
    const root = join(dir, 'ascii');
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(
      join(root, 'src/cli/index.ts'),
      '// µ\nexport const unit = /(µs|μs)/.exec("3μs")?.[1];\nexport const text = "⋅😀";\n',
    );
    await build(join(root, 'src'), join(root, 'dist'));
    const file = join(root, 'dist/bundle/kestreld.cjs');
    assert.doesNotMatch(readFileSync(file, 'latin1'), /[\u0080-\uffff]/);
    const { loadBundle } = (await import(pathToFileURL(join(REPO_ROOT, 'bin/load-bundle.js')).href)) as {
      loadBundle(file: string, kind: string): { exports: Record<string, unknown> };
    };
    const { exports } = loadBundle(file, 'test');
    assert.equal(exports.unit, 'μs');
    assert.equal(exports.text, '⋅😀');
  });
});

describe('launcher', () => {
  // A checkout of its own: the launcher's files, a source tree and its build.
  const root = join(dir, 'launcher');
  const launch = () =>
    spawnSync(process.execPath, [join(root, 'bin/kestreld.js'), 'version', 'x'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });

  it('runs a current build, and refuses a stale or missing one with the reason, running none of it', async () => {
    mkdirSync(join(root, 'bin'), { recursive: true });
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    for (const f of ['kestreld.js', 'launch.js', 'build-state.js', 'load-bundle.js', 'package.json']) {
      copyFileSync(join(REPO_ROOT, 'bin', f), join(root, 'bin', f));
    }
    writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
    const entry = join(root, 'src/cli/index.ts');
    writeFileSync(
      entry,
      `export async function main(argv: string[]): Promise<void> {\n  console.log('ran', argv[3]);\n}\n`,
    );
    await build(join(root, 'src'), join(root, 'dist'));
    const ok = launch();
    assert.equal(ok.stdout, 'ran x\n', ok.stderr);
    assert.equal(ok.status, 0);
    const later = new Date(Date.now() + 60_000);
    utimesSync(entry, later, later);
    const stale = launch();
    assert.equal(stale.status, 1);
    assert.equal(stale.stdout, '');
    assert.match(
      stale.stderr,
      /^kestreld: the compiled node is missing or out of date \(.*index\.ts changed since the last build\); run `npm run build`\n$/,
    );
    await build(join(root, 'src'), join(root, 'dist'));
    rmSync(join(root, 'dist/bundle/kestreld.cjs'));
    const missing = launch();
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /out of date \(no bundle .*kestreld\.cjs\)/);
  });
});
