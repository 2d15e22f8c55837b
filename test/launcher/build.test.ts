// The build step (scripts/build.mjs): plain JavaScript with `.js` specifiers, rebuilt when a source changes, one
// bundle of the CLI, and a compiled node that runs without any TypeScript loader (tracer workers included).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build, isStale } from '../../scripts/build.mjs';
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
    write('extra.ts', `export {};\n`);
    assert.equal(isStale(src, dist), true);
  });

  it('bundles cli/index.js into bundle/kestreld.js, each module keeping its own import.meta.url', async () => {
    mkdirSync(join(src, 'cli'), { recursive: true });
    write('cli/index.ts', `export { self, value } from '../entry.ts';\nexport const here = import.meta.url;\n`);
    await build(src, dist);
    const m = (await import(pathToFileURL(join(dist, 'bundle/kestreld.js')).href)) as Record<string, unknown>;
    assert.equal(m.value, 1);
    assert.equal(m.self, pathToFileURL(join(dist, 'entry.js')).href);
    assert.equal(m.here, pathToFileURL(join(dist, 'cli/index.js')).href);
    const later = new Date(Date.now() + 10_000);
    utimesSync(join(dist, '.built'), later, later);
    assert.equal(isStale(src, dist), false);
    rmSync(join(dist, 'bundle/kestreld.js'));
    assert.equal(isStale(src, dist), true);
  });

  it('runs the repository node from dist/ with plain node: no loader, the worker boots compiled JavaScript', () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT });
    const pool = readFileSync(join(REPO_ROOT, 'dist/tracing/worker/pool.js'), 'utf8');
    assert.match(pool, /'\.\/entry\.js'|"\.\/entry\.js"/);
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
