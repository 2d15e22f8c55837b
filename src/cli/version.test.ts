import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatVersion, versionInfo } from './version.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('kestreld version', () => {
  it("reports package.json's version, the checkout's commit and the default fork", () => {
    const info = versionInfo(ROOT);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(info.version, pkg.version);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    assert.equal(info.commit, head);
    assert.equal(info.fork, 'Osaka');
  });

  it('says unknown outside a git checkout of Kestrel', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kestrel-version-'));
    try {
      assert.deepEqual([versionInfo(dir).commit, versionInfo(dir).modified], ['unknown', false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints one fact a line', () => {
    const text = formatVersion({
      version: '1.2.3',
      commit: 'a'.repeat(40),
      modified: true,
      fork: 'osaka',
      node: 'v24.0.0',
      platform: 'linux-x64',
    });
    assert.equal(
      text,
      `kestreld 1.2.3\ncommit: ${'a'.repeat(40)} (modified)\ndefault fork: Osaka\nnode: v24.0.0 linux-x64`,
    );
  });

  it('answers `version` and `--version` from the launcher alike, exit code 0', () => {
    const run = (arg: string) =>
      spawnSync(process.execPath, ['bin/kestreld.js', arg], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const a = run('version');
    const b = run('--version');
    assert.equal(a.status, 0, a.stderr);
    assert.equal(b.status, 0, b.stderr);
    assert.equal(a.stdout, b.stdout);
    assert.equal(a.stdout, `${formatVersion(versionInfo(ROOT))}\n`);
  });
});
