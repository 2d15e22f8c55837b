// Packs the shared Ethereum state tests into test/fixtures/ethereum-tests/ as one brotli-compressed JSON bundle per
// set ({ "<path in the set>": <the file's tests> }), keeping only what the runner reads: `_info` is dropped, and
// GeneralStateTests keeps only its Cancun cases (older forks are out of scope).
// Usage: node --import tsx scripts/pack-state-tests.ts [/work/shared/ethereum-tests]   (the Cancun and Prague sets)
//        node --import tsx scripts/pack-state-tests.ts --osaka OUT   (the Osaka sets: OUT as made by
//                                                                     scripts/fill-osaka-state-tests.sh)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const osaka = process.argv[2] === '--osaka' ? process.argv[3] : undefined;
const source = osaka === undefined ? (process.argv[2] ?? '/work/shared/ethereum-tests') : undefined;
const outDir = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'ethereum-tests');

function jsonFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? jsonFiles(path.join(dir, e.name)) : e.name.endsWith('.json') ? [path.join(dir, e.name)] : [],
    )
    .sort();
}

type Test = { post: Record<string, unknown[]>; _info?: unknown };

function pack(name: string, root: string, forks: readonly string[] | undefined): void {
  const bundle: Record<string, Record<string, Test>> = {};
  let cases = 0;
  for (const file of jsonFiles(root)) {
    const tests = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Test>;
    const kept: Record<string, Test> = {};
    for (const [testName, t] of Object.entries(tests)) {
      const post = Object.fromEntries(
        Object.entries(t.post).filter(([fork]) => forks === undefined || forks.includes(fork)),
      );
      if (Object.keys(post).length === 0) continue;
      const { _info: _dropped, ...rest } = t;
      kept[testName] = { ...rest, post };
      for (const list of Object.values(post)) cases += list.length;
    }
    if (Object.keys(kept).length > 0) bundle[path.relative(root, file)] = kept;
  }
  const raw = Buffer.from(JSON.stringify(bundle));
  const packed = zlib.brotliCompressSync(raw, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  fs.writeFileSync(path.join(outDir, `${name}.json.br`), packed);
  console.log(`${name}: ${Object.keys(bundle).length} files, ${cases} cases, ${raw.length} -> ${packed.length} bytes`);
}

/** Packs one set of execution-spec-tests' state tests for Osaka: `fill --output` wrote them under state_tests/. */
function packOsaka(name: string, filled: string): void {
  pack(name, path.join(filled, 'state_tests'), ['Osaka']);
}

fs.mkdirSync(outDir, { recursive: true });
if (osaka !== undefined) {
  packOsaka('eest-osaka', path.join(osaka, 'osaka'));
  packOsaka('eest-prague-for-osaka', path.join(osaka, 'prague'));
  packOsaka('eest-cancun-for-osaka', path.join(osaka, 'cancun'));
  packOsaka('eest-older-for-osaka', path.join(osaka, 'older'));
  process.exit(0);
}
if (source === undefined) throw new Error('usage: pack-state-tests.ts [SHARED_DIR] | --osaka FILLED_DIR');
pack('GeneralStateTests', path.join(source, 'GeneralStateTests'), ['Cancun']);
const eest = fs.mkdtempSync(path.join(os.tmpdir(), 'eest-'));
try {
  execFileSync('tar', ['xzf', path.join(source, 'eest', 'eest-state-tests.tar.gz'), '-C', eest]);
  for (const set of ['prague', 'cancun-for-prague', 'older-for-prague', 'osaka-for-prague', 'cancun']) {
    pack(`eest-${set}`, path.join(eest, set), undefined);
  }
} finally {
  fs.rmSync(eest, { recursive: true, force: true });
}
fs.copyFileSync(path.join(source, 'LICENSE'), path.join(outDir, 'LICENSE-ethereum-tests'));
fs.copyFileSync(path.join(source, 'eest', 'LICENSE'), path.join(outDir, 'LICENSE-execution-spec-tests'));
