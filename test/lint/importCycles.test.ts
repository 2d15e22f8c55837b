// No circles between modules of src/: the graph of static `import … from` and `export … from` of relative .ts paths
// has no cycle. The layer rule (eslint/layers.js) only sees folders, so two files of one folder could still name
// each other; this test sees files.
//
// Type-only imports count. They vanish from the emitted JavaScript, so they cannot break module initialisation,
// but a circle of types is the same knot for a reader: neither module can be read, changed or tested without the
// other. Breaking one means moving the shared type to the module both sides already depend on. Dynamic import()
// is left out on purpose: it is how a module loads an optional back end lazily, and it runs after both are loaded.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * Cycles tolerated until the change that breaks them lands, each written as the cycle the test prints. Every entry
 * must still be a cycle (the test fails on a stale entry, so the list only shrinks).
 */
const ALLOWED: readonly string[] = [];

/** Every production module of src/ (tests are never imported, so they close no circle). */
function modules(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...modules(p));
    else if (d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') && !d.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The relative .ts modules `file` names in a static import or export-from (type-only ones included). */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const s of source.statements) {
    const spec =
      (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) &&
      s.moduleSpecifier !== undefined &&
      ts.isStringLiteral(s.moduleSpecifier)
        ? s.moduleSpecifier.text
        : undefined;
    if (spec?.startsWith('.') && spec.endsWith('.ts')) out.push(resolve(dirname(file), spec));
  }
  return out;
}

/** The import graph of src/: module → modules it imports (paths relative to src/). */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const file of modules(SRC)) {
    g.set(
      relative(SRC, file),
      importsOf(file).map((f) => relative(SRC, f)),
    );
  }
  return g;
}

/** One cycle per strongly connected component of more than one module (Tarjan), each from its smallest name. */
function cycles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) !== idx.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      on.delete(w);
      scc.push(w);
    } while (w !== v);
    const self = (g.get(v) ?? []).includes(v);
    if (scc.length > 1 || self) found.push(pathWithin(g, new Set(scc)));
  };
  for (const v of [...g.keys()].sort()) if (!idx.has(v)) connect(v);
  return found;
}

/** A shortest cycle through the component's first module, staying inside the component (breadth-first). */
function pathWithin(g: Map<string, string[]>, scc: Set<string>): string[] {
  const start = [...scc].sort()[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of g.get(v) ?? []) {
      if (!scc.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = prev.get(u)!) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

describe('import cycles', () => {
  const found = cycles(graph()).map((c) => c.join(' → '));

  it('src/ has no circle of imports between modules', () => {
    const unexpected = found.filter((c) => !ALLOWED.includes(c));
    assert.deepEqual(unexpected, [], `import cycles:\n${unexpected.join('\n')}`);
  });

  it('allows no cycle that is gone', () => {
    assert.deepEqual(
      ALLOWED.filter((c) => !found.includes(c)),
      [],
    );
  });

  it('finds a cycle when there is one (the checker itself)', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    assert.deepEqual(cycles(g), [['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    assert.deepEqual(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
      [],
    );
  });
});
