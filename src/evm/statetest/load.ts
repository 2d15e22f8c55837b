// Finding and reading fixture files: plain state-test JSON files, directories of them, and the repo's compressed
// bundles (`*.json.br` / `*.json.gz`: one JSON object mapping each original file's path to its tests).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** One fixture file's parsed JSON and the name results report for it. */
export interface FixtureFile {
  file: string;
  json: unknown;
}

const FIXTURE_SUFFIXES = ['.json', '.json.br', '.json.gz'];

function isFixturePath(p: string): boolean {
  return FIXTURE_SUFFIXES.some((s) => p.endsWith(s));
}

/** The fixture paths under `p` (itself when a file), sorted, so runs and shards are reproducible. */
export function fixturePaths(p: string): string[] {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return [p];
  return fs
    .readdirSync(p, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => {
      const full = path.join(p, e.name);
      if (e.isDirectory()) return fixturePaths(full);
      return isFixturePath(e.name) ? [full] : [];
    });
}

function readText(p: string): string {
  const raw = fs.readFileSync(p);
  if (p.endsWith('.br')) return zlib.brotliDecompressSync(raw).toString('utf8');
  if (p.endsWith('.gz')) return zlib.gunzipSync(raw).toString('utf8');
  return raw.toString('utf8');
}

// A state-test file maps test names to objects with a `post`; a bundle maps file paths to such files.
function isBundle(json: unknown): json is Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  const first = Object.values(json)[0];
  return first !== null && typeof first === 'object' && !('post' in first);
}

/** The fixture files held by one path on disk (a bundle holds many), named `path` or `bundle/inner-path`. */
export function readFixtureFiles(p: string): FixtureFile[] {
  const json: unknown = JSON.parse(readText(p));
  if (!isBundle(json)) return [{ file: p, json }];
  return Object.entries(json).map(([inner, tests]) => ({ file: `${p}/${inner}`, json: tests }));
}
