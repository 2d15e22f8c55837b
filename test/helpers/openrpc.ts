// Validates JSON-RPC results against the result schema of each method in the execution-apis OpenRPC
// document (test/fixtures/openrpc.json, CC0-1.0). One ajv validator per method, compiled lazily.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

const OPENRPC_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'openrpc.json');

interface OpenRpcDoc {
  methods: Array<{ name: string; result?: { name: string; schema: Record<string, unknown> } }>;
  components?: { schemas?: Record<string, unknown> };
}

/**
 * Result schemas for methods the execution-apis document does not define (net_/web3_ and
 * eth_protocolVersion). These are ours, written from geth's behaviour, not part of the upstream spec.
 */
const QUANTITY = { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' };
const LOCAL_SCHEMAS: Record<string, Record<string, unknown>> = {
  eth_protocolVersion: QUANTITY,
  net_listening: { type: 'boolean' },
  net_peerCount: QUANTITY,
  web3_clientVersion: { type: 'string', minLength: 1 },
  web3_sha3: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
};

let doc: OpenRpcDoc | undefined;
let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

function load(): { doc: OpenRpcDoc; ajv: Ajv } {
  if (!doc || !ajv) {
    doc = JSON.parse(readFileSync(OPENRPC_PATH, 'utf8')) as OpenRpcDoc;
    // strict: false — the document uses OpenRPC/JSON-Schema annotations (title, description, …) freely
    // and mixes keywords ajv's strict mode would reject; validation semantics are unaffected.
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  }
  return { doc, ajv };
}

/** Names of the methods that have a result schema (upstream document plus LOCAL_SCHEMAS). */
export function methodsWithSchema(): string[] {
  const { doc } = load();
  return [...doc.methods.filter((m) => m.result?.schema).map((m) => m.name), ...Object.keys(LOCAL_SCHEMAS)];
}

/** The raw result schema of a method (throws when the method has none). */
export function resultSchema(method: string): Record<string, unknown> {
  if (LOCAL_SCHEMAS[method]) return LOCAL_SCHEMAS[method];
  const { doc } = load();
  const m = doc.methods.find((x) => x.name === method);
  if (!m?.result?.schema) throw new Error(`openrpc.json has no result schema for ${method}`);
  return m.result.schema;
}

function validatorFor(method: string): ValidateFunction {
  const hit = validators.get(method);
  if (hit) return hit;
  const { doc } = load();
  const v = compileWithComponents(resultSchema(method), doc.components);
  validators.set(method, v);
  return v;
}

/**
 * Compiles a schema whose `$ref`s point at "#/components/schemas/…" (OpenRPC style) by embedding the
 * document's components in the compiled root, so the JSON pointers resolve. (The dereferenced upstream
 * build has no `$ref`s today; this keeps working if a future copy does.)
 */
export function compileWithComponents(
  schema: Record<string, unknown>,
  components?: OpenRpcDoc['components'],
): ValidateFunction {
  const { ajv } = load();
  return ajv.compile({ ...schema, components: components ?? { schemas: {} } });
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let cur: any = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[key];
  }
  return cur;
}

function short(v: unknown, max = 200): string {
  const s = JSON.stringify(v);
  if (s === undefined) return 'undefined';
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function describeErrors(result: unknown, errors: ErrorObject[]): string {
  // oneOf failures list every branch; put the most specific (deepest) complaints first.
  const relevant = errors.filter(
    (e) =>
      !(e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null') &&
      e.keyword !== 'oneOf' &&
      e.keyword !== 'anyOf',
  );
  const sorted = [...(relevant.length > 0 ? relevant : errors)].sort(
    (a, b) => b.instancePath.length - a.instancePath.length,
  );
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const e of sorted) {
    const line = `  at ${e.instancePath || '(root)'}: ${e.message ?? e.keyword}${
      e.keyword === 'additionalProperties' ? ` (${short(e.params)})` : ''
    }; actual value ${short(valueAt(result, e.instancePath))}  [schema ${e.schemaPath}]`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
    if (lines.length >= 20) {
      lines.push(`  … ${sorted.length - 20} more`);
      break;
    }
  }
  return lines.join('\n');
}

/** Validates `result` against the method's result schema; throws an AssertionError-like Error listing the mismatches. */
export function assertConforms(method: string, result: unknown): void {
  const v = validatorFor(method);
  if (v(result)) return;
  const err = new Error(
    `${method} result does not conform to its OpenRPC result schema:\n${describeErrors(result, v.errors ?? [])}\n` +
      `  result: ${short(result, 3000)}`,
  );
  err.name = 'SchemaConformanceError';
  throw err;
}

/** True when `result` matches the schema (for negative checks such as the ethermint-compat shapes). */
export function conforms(method: string, result: unknown): boolean {
  return validatorFor(method)(result) === true;
}
