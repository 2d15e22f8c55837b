// The layer diagram of ARCHITECTURE.md ("Layers") as data, and the lint rule that holds every import in src/ to it.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * Each folder of src/ (a path relative to src/; a sub-folder entry overrides its parent's) and what else in src/ it
 * may import besides itself. Read downward: nothing may name a folder that names it, directly or not.
 */
export const LAYERS = {
  // Leaves.
  primitives: [],
  errors: ['primitives'],
  // Structured logging: a leaf every layer above the engine may use.
  log: ['primitives', 'errors'],
  // The engine knows nothing of the node: state comes in through its own small interface. It shares the ground floor
  // (bytes, hex, keccak, RLP, the trie) with every other layer.
  evm: ['primitives'],
  keys: ['log', 'primitives'],
  store: ['log', 'primitives', 'errors'],
  config: ['log', 'primitives', 'errors'],
  // The deterministic state machine; state/ sits below the rest of app/.
  app: ['store', 'evm', 'keys', 'log', 'primitives', 'errors'],
  'app/state': ['store', 'log', 'primitives', 'errors'],
  // Services used by the servers and the consensus engines.
  mempool: ['app', 'store', 'log', 'primitives', 'errors'],
  keystore: ['keys', 'log', 'primitives', 'errors'],
  tracing: ['app', 'evm', 'store', 'log', 'primitives', 'errors'],
  filters: ['app', 'mempool', 'config', 'store', 'log', 'primitives', 'errors'],
  // ABCI: the protocol (framing, server) and the one table from domain errors to ABCI codes.
  abci: ['log', 'primitives', 'errors'],
  consensus: ['abci', 'app', 'mempool', 'store', 'config', 'log', 'primitives', 'errors'],
  // Servers: thin adapters over the services. cometrpc shares the JSON-RPC transport only.
  rpc: [
    'consensus',
    'app',
    'mempool',
    'keystore',
    'tracing',
    'filters',
    'config',
    'store',
    'evm',
    'log',
    'primitives',
    'errors',
  ],
  grpc: ['app', 'store', 'log', 'primitives', 'errors'],
  cometrpc: ['rpc/server', 'abci', 'app', 'store', 'log', 'primitives', 'errors'],
  // Composition beside main.ts: the consensus modes, each wiring an engine, a submit path and its servers.
  compose: [
    'rpc',
    'grpc',
    'cometrpc',
    'consensus',
    'abci',
    'metrics',
    'snapshots',
    'mempool',
    'app',
    'config',
    'store',
    'log',
    'primitives',
    'errors',
  ],
  // The home on disk, local testnets, and the CLI: `start` runs the composition root; every other command reaches
  // a running node over the network only.
  // Prometheus series: instruments the JSON-RPC dispatcher and the ABCI application (their types only).
  metrics: ['rpc/server', 'abci', 'app', 'log', 'primitives', 'errors'],
  // State-sync snapshots: written from and restored into the app's store.
  snapshots: ['app', 'store', 'log', 'primitives', 'errors'],
  node: ['app', 'config', 'keys', 'log', 'primitives', 'errors'],
  testnet: ['app', 'node', 'config', 'keys', 'log', 'primitives', 'errors'],
  cli: ['main.ts', 'evm', 'testnet', 'node', 'keystore', 'config', 'keys', 'log', 'primitives', 'errors'],
};

/** The composition root may import everything. */
const ROOTS = new Set(['main.ts']);

/** The layer a path below src/ belongs to: the longest LAYERS key that is it or contains it. */
export function layerOf(path) {
  let best;
  for (const key of Object.keys(LAYERS)) {
    if ((path === key || path.startsWith(key + '/')) && (!best || key.length > best.length)) best = key;
  }
  return best;
}

/** Whether `target` (a path below src/) lies in `folder` (a LAYERS key) or below it. */
const within = (target, folder) => target === folder || target.startsWith(folder + '/');

/** ESLint rule kestrel/layers: a relative import must stay in its layer or go to one the layer lists. */
export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports in src/ follow the layer diagram of ARCHITECTURE.md (eslint/layers.js)' },
    schema: [],
    messages: {
      wrongWay:
        "{{from}}/ may not import {{to}}/ ('{{source}}'): {{from}}/ may import only {{allowed}} (ARCHITECTURE.md)",
      testSupport: "production code may not import test support ('{{source}}'): *.testing.ts is left out of the build",
      noLayer: '{{from}}/ has no layer: add it to LAYERS in eslint/layers.js',
    },
  },
  create(context) {
    const file = relative(SRC, context.filename).split(sep).join('/');
    if (file.startsWith('..') || ROOTS.has(file) || file.endsWith('.test.ts')) return {};
    const fromDir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : file;
    const from = layerOf(fromDir);
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      if (source.endsWith('.testing.ts') && !file.endsWith('.testing.ts')) {
        context.report({ node, messageId: 'testSupport', data: { source } });
        return;
      }
      if (!from) {
        context.report({ node, messageId: 'noLayer', data: { from: fromDir } });
        return;
      }
      const target = relative(SRC, resolve(SRC, fromDir, source))
        .split(sep)
        .join('/');
      if (target.startsWith('..') || within(target, from)) return;
      const allowed = LAYERS[from];
      if (allowed.some((a) => within(target, a))) return;
      const to = layerOf(target) ?? target.split('/')[0];
      const list = allowed.length ? allowed.map((a) => a + '/').join(', ') : 'nothing outside itself';
      context.report({ node, messageId: 'wrongWay', data: { from, to, source, allowed: list } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

/** The plugin that carries the rule, for eslint.config.js. */
export const kestrelPlugin = { meta: { name: 'kestrel' }, rules: { layers: layersRule } };
