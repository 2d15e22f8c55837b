// The layer table of eslint/layers.js: acyclic, covering every folder of src/, and its rule refusing a wrong-way import.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { LAYERS, layerOf, layersRule } from '../../eslint/layers.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const table: Readonly<Record<string, readonly string[]>> = LAYERS;

/** Lints one source text as if it were the file at `path` (relative to src/); returns the messages. */
function lint(path: string, code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser as Linter.Parser },
        plugins: { kestrel: { rules: { layers: layersRule } } },
        rules: { 'kestrel/layers': 'error' },
      },
    ],
    { filename: SRC + path },
  );
  return messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layers', () => {
  it('has no cycle: following the allowed imports never comes back', () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (layer: string, path: string[]): void => {
      assert.ok(!visiting.has(layer), `cycle: ${[...path, layer].join(' → ')}`);
      if (done.has(layer)) return;
      visiting.add(layer);
      for (const to of table[layer] ?? []) {
        const target = layerOf(to);
        if (target) visit(target, [...path, layer]);
      }
      visiting.delete(layer);
      done.add(layer);
    };
    for (const layer of Object.keys(table)) visit(layer, []);
  });

  it('gives every folder of src/ a layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory());
    for (const d of folders) assert.ok(layerOf(d.name), `${d.name}/ has no layer`);
  });

  it('lets the engine import nothing outside src/evm/ but primitives/', () => {
    assert.deepEqual(table.evm, ['primitives']);
    assert.deepEqual(lint('evm/x.ts', "import { a } from './types.ts';"), []);
    assert.deepEqual(lint('evm/x.ts', "import { keccak256 } from '../primitives/keccak.ts';"), []);
    assert.match(lint('evm/x.ts', "import { Store } from '../store/kv.ts';")[0] ?? '', /^kestrel\/layers:/);
  });

  it('refuses a wrong-way import with a message naming the rule and the allowed layers', () => {
    assert.deepEqual(lint('store/x.ts', "import type { KestrelApp } from '../app/app.ts';"), [
      "kestrel/layers: store/ may not import app/ ('../app/app.ts'): store/ may import only log/, primitives/, errors/ (ARCHITECTURE.md)",
    ]);
    assert.equal(lint('app/state/x.ts', "export { ChainQuery } from '../query.ts';").length, 1);
    assert.equal(lint('consensus/x.ts', "const m = await import('../rpc/server/http.ts');").length, 1);
  });

  it('allows downward, same-folder and package imports', () => {
    const ok = [
      "import { keccak256 } from '../primitives/hash.ts';",
      "import { TxPool } from './pool.ts';",
      "import { RLP } from '@ethereumjs/rlp';",
    ];
    for (const code of ok) assert.deepEqual(lint('mempool/x.ts', code), []);
    assert.deepEqual(lint('app/bank/x.ts', "import { parseGenesis } from '../genesis.ts';"), []);
    assert.deepEqual(lint('cometrpc/x.ts', "import { listen } from '../rpc/server/listen.ts';"), []);
    assert.equal(lint('cometrpc/x.ts', "import { ethNamespace } from '../rpc/namespaces/eth/index.ts';").length, 1);
  });

  it('lets compose/ wire the servers and engines, and nothing below it import compose/', () => {
    assert.deepEqual(lint('compose/x.ts', "import { SoloEngine } from '../consensus/solo/engine.ts';"), []);
    assert.deepEqual(lint('compose/x.ts', "import { ethNamespace } from '../rpc/namespaces/eth/index.ts';"), []);
    assert.equal(lint('compose/x.ts', "import { main } from '../cli/index.ts';").length, 1);
    assert.equal(lint('consensus/x.ts', "import { consensusMode } from '../compose/consensus.ts';").length, 1);
    assert.equal(lint('rpc/x.ts', "import { startListeners } from '../compose/listeners.ts';").length, 1);
  });

  it('keeps test support (*.testing.ts, not built) out of production code', () => {
    assert.deepEqual(lint('evm/x.ts', "import { MemReader } from './testing/mem-reader.testing.ts';"), [
      "kestrel/layers: production code may not import test support ('./testing/mem-reader.testing.ts'): *.testing.ts is left out of the build",
    ]);
    assert.deepEqual(lint('evm/x.test.ts', "import { MemReader } from './testing/mem-reader.testing.ts';"), []);
    assert.deepEqual(lint('evm/testing/y.testing.ts', "import { MemReader } from './mem-reader.testing.ts';"), []);
  });
});
