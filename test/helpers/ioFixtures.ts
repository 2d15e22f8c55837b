// Reads execution-apis' .io fixtures (test/fixtures/execution-apis, CC0-1.0): `// comment` lines, then one or more
// `>> request` / `<< response` pairs.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One request and the response the reference client gave. */
export interface IoExchange {
  request: { jsonrpc: string; id: unknown; method: string; params?: unknown[] };
  response: {
    jsonrpc: string;
    id: unknown;
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
}

/** One fixture file. */
export interface IoFixture {
  /** `<method dir>/<file>` */
  name: string;
  method: string;
  comment: string;
  /** "speconly": the reference result is only an example; compare by schema. */
  specOnly: boolean;
  exchanges: IoExchange[];
}

/** Every .io fixture under `root`, sorted by name. */
export function loadIoFixtures(root: string): IoFixture[] {
  const out: IoFixture[] = [];
  for (const dir of readdirSync(root).sort()) {
    const path = join(root, dir);
    if (!statSync(path).isDirectory()) continue;
    for (const file of readdirSync(path).sort()) {
      if (!file.endsWith('.io')) continue;
      const lines = readFileSync(join(path, file), 'utf8').split('\n');
      const comment = lines
        .filter((l) => l.startsWith('//'))
        .map((l) => l.slice(2).trim())
        .join(' ');
      const exchanges: IoExchange[] = [];
      let pending: IoExchange['request'] | undefined;
      for (const l of lines) {
        if (l.startsWith('>> ')) pending = JSON.parse(l.slice(3));
        else if (l.startsWith('<< ') && pending) {
          exchanges.push({ request: pending, response: JSON.parse(l.slice(3)) });
          pending = undefined;
        }
      }
      out.push({ name: `${dir}/${file}`, method: dir, comment, specOnly: /speconly/.test(comment), exchanges });
    }
  }
  return out;
}
