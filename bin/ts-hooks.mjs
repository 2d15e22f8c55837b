// Module hooks that run the TypeScript sources without a build step. Only `.ts` files are touched: esbuild strips
// their types (with the repo's tsconfig options) and the output is cached on disk by content hash. Every other
// module (all of node_modules) is left to Node's own resolution and loading, which is what makes a start much
// cheaper than with a general-purpose loader that inspects every import.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { transform } from 'esbuild';

const tsconfig = JSON.parse(readFileSync(new URL('../tsconfig.json', import.meta.url), 'utf8'));
const options = {
  loader: 'ts',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: tsconfig.compilerOptions },
};
const cacheDir = join(tmpdir(), `kestrel-ts-${process.getuid?.() ?? 'user'}`);
mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
const optionsKey = JSON.stringify(options);

/** Node's load hook: transforms `.ts` modules, passes everything else through. */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = readFileSync(path, 'utf8');
  const key = createHash('sha256')
    .update(optionsKey)
    .update('\0')
    .update(path)
    .update('\0')
    .update(source)
    .digest('hex');
  const cached = join(cacheDir, `${key}.mjs`);
  let code;
  try {
    code = readFileSync(cached, 'utf8');
  } catch {
    code = (await transform(source, { ...options, sourcefile: path })).code;
    // Written under a unique name and renamed, so concurrent starts never read a half-written file.
    const tmp = `${cached}.${process.pid}.${Date.now()}.tmp`;
    try {
      writeFileSync(tmp, code, { mode: 0o600 });
      renameSync(tmp, cached);
    } catch {
      // A read-only or full temp dir only costs the cache.
    }
  }
  return { format: 'module', source: code, shortCircuit: true };
}
