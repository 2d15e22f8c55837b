// The launcher's bundle cache (bin/bundle.mjs): each start must run exactly the sources on disk, with each file's
// own import.meta.url, and fall back to the per-file hooks when the sources cannot be bundled.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { bundleStackFormatter, importBundled } from '../../bin/bundle.mjs';
import { REPO_ROOT } from '../helpers/node.ts';

const dir = mkdtempSync(join(tmpdir(), 'kestrel-bundle-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const src = join(dir, 'src');
const cacheDir = join(dir, 'cache');
const tsconfigPath = join(REPO_ROOT, 'tsconfig.json');
const write = (name: string, text: string) => writeFileSync(join(src, name), text);
const load = (entry = 'entry.ts') => importBundled(join(src, entry), { tsconfigPath, cacheDir });
const bundles = () => readdirSync(cacheDir).filter((f) => f.startsWith('bundle-'));

describe('launcher bundle cache', () => {
  it('runs the sources with their own import.meta.url and packages resolved as from the repository', async () => {
    mkdirSync(join(src, 'lib'), { recursive: true });
    write('lib/value.ts', `export const value: number = 1;\nexport const where = import.meta.url;\n`);
    write(
      'entry.ts',
      [
        `import { parse } from 'smol-toml';`,
        `import { value, where } from './lib/value.ts';`,
        `export const toml = parse('a = 7').a;`,
        `export { value, where };`,
        `export const self = import.meta.url;`,
        `export const lazy = () => import('./lib/value.ts').then((m) => m.value);`,
      ].join('\n'),
    );
    const m = await load();
    assert.ok(m);
    assert.equal(m.value, 1);
    assert.equal(m.toml, 7);
    assert.equal(m.where, pathToFileURL(join(src, 'lib/value.ts')).href);
    assert.equal(m.self, pathToFileURL(join(src, 'entry.ts')).href);
    assert.equal(await (m.lazy as () => Promise<number>)(), 1);
    assert.equal(bundles().length, 1);
  });

  it('reuses the bundle while the sources are unchanged', async () => {
    const before = bundles();
    const m = await load();
    assert.equal(m?.value, 1);
    assert.deepEqual(bundles(), before);
  });

  it('rebuilds when any source changes, including one only imported lazily', async () => {
    write('lib/value.ts', `export const value: number = 2;\nexport const where = import.meta.url;\n`);
    const m = await load();
    assert.equal(m?.value, 2);
    assert.equal(await (m?.lazy as () => Promise<number>)(), 2);
    assert.equal(bundles().length, 2);
  });

  it('shows stack frames of the bundle at their .ts lines', async () => {
    write('thrower.ts', `// a comment line\nexport function boom(): never {\n  throw new Error('boom');\n}\n`);
    const m = await load('thrower.ts');
    const prev = Error.prepareStackTrace;
    Error.prepareStackTrace = bundleStackFormatter(cacheDir);
    let stack = '';
    try {
      (m?.boom as () => never)();
    } catch (e) {
      stack = String((e as Error).stack);
    } finally {
      Error.prepareStackTrace = prev;
    }
    const top = /^Error: boom\n {4}at (?:Module\.)?boom \((.*)\)\n/.exec(stack);
    assert.ok(top, stack);
    assert.equal(top[1], `${join(src, 'thrower.ts')}:3:9`);
    // Frames outside the bundle keep V8's own format.
    assert.match(stack, /\n {4}at .*bundle\.test\.ts:\d+:\d+/);
  });

  it('gives up (the launcher then uses the hooks) when the sources do not compile', async () => {
    write('lib/value.ts', `export const value: number = ;\n`);
    assert.equal(await load(), undefined);
  });

  it('gives up on an import.meta use it cannot pin to the source file', async () => {
    write('meta.ts', `export const d = import.meta.dirname;\n`);
    assert.equal(await load('meta.ts'), undefined);
  });

  it("bundles the node CLI itself, its client commands without the node's packages", async () => {
    const cliCache = join(dir, 'cli-cache');
    const cli = await importBundled(join(REPO_ROOT, 'src/cli/index.ts'), { tsconfigPath, cacheDir: cliCache });
    assert.ok(cli);
    assert.equal(typeof cli.main, 'function');
    assert.equal(typeof cli.buildProgram, 'function');
    // main.ts is imported with import() by `start`: its packages belong to a chunk loaded then, not to the entry.
    const [bundle] = readdirSync(cliCache).filter((f) => f.startsWith('bundle-'));
    const entry = readFileSync(join(cliCache, bundle!, 'entry.mjs'), 'utf8');
    assert.doesNotMatch(entry, /@ethereumjs\/vm/);
    assert.ok(
      readdirSync(join(cliCache, bundle!)).some(
        (f) => f.startsWith('chunk-') && /@ethereumjs\/vm/.test(readFileSync(join(cliCache, bundle!, f), 'utf8')),
      ),
    );
  });
});
