// Hardhat 3 (Node 22+) against a real `kestreld start --dev`: test/fixtures/hardhat3 is a user's project, with its
// own package.json and lockfile, run through both official toolboxes unchanged — viem with node:test, and Mocha
// with ethers (chai matchers, network helpers, fixtures). Its compiler is npm's solc (Hardhat would otherwise
// download one), so the project builds with the registries alone. Its dependencies are installed on first use.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { type KestrelNode, printLogsOnFailure, REPO_ROOT, startNode } from '../helpers/node.ts';

const PROJECT = join(REPO_ROOT, 'test', 'fixtures', 'hardhat3');
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** Runs a command in the project with the test's Node on PATH; resolves with its exit code and output. */
function run(cmd: string, args: string[], env: Record<string, string>, timeoutMs: number) {
  return new Promise<{ code: number | null; out: string }>((res, rej) => {
    const p = spawn(cmd, args, {
      cwd: PROJECT,
      env: { ...process.env, ...env, FORCE_COLOR: '0', HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', rej);
    p.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, out });
    });
  });
}

/** Runs the project's Hardhat with one of its configs. */
function hardhat(config: string, args: string[], env: Record<string, string>) {
  const cli = join(PROJECT, 'node_modules', 'hardhat', 'dist', 'src', 'cli.js');
  return run(process.execPath, [cli, '--config', config, ...args], env, 180_000);
}

describe(
  'Hardhat 3: the viem and Mocha+ethers toolboxes',
  { skip: NODE_MAJOR < 22 ? 'Hardhat 3 needs Node 22 or later' : false, timeout: 600_000 },
  () => {
    let node: KestrelNode;
    let env: Record<string, string>;

    before(async () => {
      if (!existsSync(join(PROJECT, 'node_modules', 'hardhat', 'package.json'))) {
        // npm from the Node running the test, so the engine checks pick the platform packages for this Node.
        const npmCli = join(process.execPath, '..', '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
        const npm = existsSync(npmCli) ? [process.execPath, npmCli] : ['npm'];
        const r = await run(npm[0]!, [...npm.slice(1), 'ci', '--no-audit', '--no-fund'], {}, 480_000);
        assert.equal(r.code, 0, `npm ci in ${PROJECT} failed:\n${r.out}`);
      }
      node = await startNode();
      env = { KESTREL_URL: node.http };
    });
    afterEach(printLogsOnFailure(() => node));
    after(async () => {
      await node?.dispose();
      for (const d of ['cache', 'artifacts', 'types']) rmSync(join(PROJECT, d), { recursive: true, force: true });
    });

    it('the viem toolbox: deploy, events, reverts, CLZ (solc 0.8.37 targets Osaka), network helpers', async () => {
      const r = await hardhat('hardhat.config.viem.ts', ['test', 'nodejs', '--network', 'kestrel'], env);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /4 passing/, r.out);
      assert.doesNotMatch(r.out, /failing/, r.out);
    });

    it('the Mocha + ethers toolbox: chai matchers, signers, balances, loadFixture', async () => {
      const r = await hardhat('hardhat.config.ethers.ts', ['test', 'mocha', '--network', 'kestrel'], env);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /4 passing/, r.out);
      assert.doesNotMatch(r.out, /failing/, r.out);
    });
  },
);
