// No import circle inside src/evm: a module of the engine never reaches itself again through the modules it imports.
// A circle makes the load order decide which bindings are still undefined at start, and hides which module is the
// lower one. Type-only imports count too: they are erased, but they tie the modules' designs together the same way.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../src/evm/', import.meta.url));
/** Static `import … from` / `export … from` specifiers (each statement's `from '…'`, across line breaks). */
const FROM = /^\s*(?:import|export)\b[^;]*?\bfrom\s*'([^']+)'/gms;

/** Every .ts module under `dir` (tests excluded: they sit above the code they test). */
function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return modules(path);
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The modules inside src/evm that `file` imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(FROM)) {
    const spec = m[1]!;
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec);
    if (target.startsWith(ROOT)) out.push(target);
  }
  return out;
}

/** The first circle found in `graph`, as the list of its modules (relative to src/evm), or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const onPath: string[] = [];
  const done = new Set<string>();
  const visit = (node: string): string[] | undefined => {
    const at = onPath.indexOf(node);
    if (at >= 0) return [...onPath.slice(at), node].map((p) => relative(ROOT, p));
    if (done.has(node)) return undefined;
    onPath.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    onPath.pop();
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('src/evm import graph', () => {
  it('finds a circle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
    ]);
    assert.equal(findCycle(graph)?.length, 4);
    assert.equal(findCycle(new Map([['/a.ts', ['/b.ts']]])), undefined);
  });

  it('reads multi-line and type-only imports', () => {
    const text =
      "import {\n  a,\n  b,\n} from './x.ts';\nimport type { T } from './y.ts';\nexport { c } from './z.ts';";
    assert.deepEqual(
      [...text.matchAll(FROM)].map((m) => m[1]),
      ['./x.ts', './y.ts', './z.ts'],
    );
  });

  it('has no circle', () => {
    const files = modules(ROOT);
    assert.ok(files.length > 20, `only ${files.length} modules found under ${ROOT}`);
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const cycle = findCycle(graph);
    assert.equal(cycle, undefined, `import circle: ${cycle?.join(' → ')}`);
  });
});
