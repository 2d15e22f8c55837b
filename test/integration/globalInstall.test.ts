// The package as users install it: `npm pack` of a checkout that has never been built (its `prepare` script builds
// dist/ at pack time) makes a tarball of bin/, dist/ and proto/ only, and `npm i -g` of that tarball into a
// temporary prefix gives a `kestreld` that runs a dev node with no sources and no devDependencies, its native
// packages installed from the registry (npm's cache, filled by `npm ci`, with --prefer-offline). The checkout is a
// copy of this one's sources beside its node_modules, so the test neither rebuilds nor packs the checkout itself.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { freePort, REPO_ROOT, rpc, rpcResult, sleep } from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'kestrel-global-install-'));
const checkout = join(work, 'checkout');
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib', 'node_modules', 'kestrel');
const kestreld = join(prefix, 'bin', 'kestreld');
// The bin's `#!/usr/bin/env node` finds this Node first.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
const started = new Set<ChildProcess>();
after(() => {
  for (const p of started) p.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Runs npm in `cwd`; its output is in the error when it fails. */
async function npm(args: string[], cwd: string, timeout: number): Promise<string> {
  try {
    const { stdout } = await run('npm', args, { cwd, env, timeout, maxBuffer: 64 << 20 });
    return stdout;
  } catch (e) {
    const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed: ${(e as Error).message}\n${stdout}\n${stderr}`);
  }
}

/** A started `kestreld start --dev` of the installed package, on free ports. */
interface Started {
  url: string;
  proc: ChildProcess;
  log: () => string;
  exited: Promise<number | null>;
}

async function start(home: string): Promise<Started> {
  const ports: number[] = [];
  while (ports.length < 4) {
    const p = await freePort();
    if (!ports.includes(p)) ports.push(p);
  }
  const [http, ws, grpc, comet] = ports as [number, number, number, number];
  const args = ['start', '--dev', '--home', home, '--json-rpc.address', `127.0.0.1:${http}`];
  args.push('--json-rpc.ws-address', `127.0.0.1:${ws}`, '--grpc.address', `127.0.0.1:${grpc}`);
  args.push('--rpc.laddr', `tcp://127.0.0.1:${comet}`);
  // Run from outside any checkout, as a user would.
  const proc = spawn(kestreld, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(proc);
  let text = '';
  proc.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
  let code: number | null | undefined;
  void exited.then((c) => {
    code = c;
    started.delete(proc);
  });
  const url = `http://127.0.0.1:${http}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (code !== undefined) throw new Error(`kestreld exited during startup (code ${code}):\n${text}`);
    const r = await rpc(url, 'eth_blockNumber', [], { timeoutMs: 2000 }).catch(() => undefined);
    if (typeof r?.result === 'string') return { url, proc, log: () => text, exited };
    if (Date.now() > deadline) throw new Error(`kestreld did not answer within 60 s:\n${text}`);
    await sleep(100);
  }
}

/** SIGTERM, then the exit code (a graceful stop is 0). */
async function stop(s: Started): Promise<number | null> {
  s.proc.kill('SIGTERM');
  return s.exited;
}

describe('npm pack and npm i -g of the tarball', { timeout: 300_000 }, () => {
  let tarball = '';

  it('packs bin/, a fresh build in dist/ with its start code cache, and proto/: no sources, tests or bench', async () => {
    for (const f of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'README.md',
      'bin',
      'scripts',
      'src',
      'proto',
    ]) {
      cpSync(join(REPO_ROOT, f), join(checkout, f), { recursive: true });
    }
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(checkout, 'node_modules'));
    assert.equal(existsSync(join(checkout, 'dist')), false);
    await npm(['pack', '--pack-destination', work], checkout, 120_000);
    const [name] = readdirSync(work).filter((f) => f.endsWith('.tgz'));
    assert.ok(name, 'npm pack wrote no tarball');
    tarball = join(work, name);
    const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 16 << 20 });
    const files = stdout.split('\n').filter(Boolean);
    for (const f of ['bin/kestreld.js', 'bin/load-bundle.js', 'dist/.built', 'dist/bundle/kestreld.cjs']) {
      assert.ok(files.includes(`package/${f}`), `${f} is not in the tarball`);
    }
    assert.ok(files.some((f) => f.startsWith('package/proto/cosmos/')));
    assert.ok(files.some((f) => /^package\/dist\/bundle\/\.code-cache-kestreld\.cjs-.*-start-seed$/.test(f)));
    const top = new Set(files.map((f) => f.split('/')[1]));
    assert.deepEqual([...top].sort(), ['README.md', 'bin', 'dist', 'package.json', 'proto']);
    assert.deepEqual(
      files.filter((f) => /\.(test|testing)\.[jt]s$|\.ts$|\.tmp$|-start$|-cli$|\/fixtures\//.test(f)),
      [],
      'tests, fixtures, TypeScript sources, temporary files or a run-written code cache in the tarball',
    );
  });

  it('installs into a prefix without devDependencies or sources, and kestreld runs a dev node there', async () => {
    assert.ok(tarball, 'the pack step failed');
    await npm(
      ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      work,
      240_000,
    );
    assert.ok(existsSync(kestreld));
    assert.equal(existsSync(join(installed, 'src')), false);
    for (const dev of ['esbuild', 'typescript', 'tsx', 'ethers']) {
      assert.equal(existsSync(join(installed, 'node_modules', dev)), false, `devDependency ${dev} installed`);
    }
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const { stdout } = await run(kestreld, ['version'], { cwd: work, env });
    assert.equal(stdout.split('\n')[0], `kestreld ${version}`);

    // The build's seed is found under the installed file's name (the install re-dates the files).
    const bundleDir = join(installed, 'dist', 'bundle');
    const id = /^\/\/ kestrel bundle (\w+)\n/.exec(readFileSync(join(bundleDir, 'kestreld.cjs'), 'utf8'))?.[1];
    assert.ok(id, 'the bundle names no build');
    const seed = `.code-cache-kestreld.cjs-${process.version}-${process.arch}-${id}-start-seed`;
    assert.ok(readdirSync(bundleDir).includes(seed), `no ${seed} in ${readdirSync(bundleDir).join(', ')}`);

    const home = join(work, 'home');
    const first = await start(home);
    const to = '0x' + '5a'.repeat(20);
    const { receipt } = await sendTx(first.url, DEV_ACCOUNTS[0]!.privateKey, { to, value: 12_345n });
    assert.equal(receipt.status, '0x1');
    assert.equal(await rpcResult<string>(first.url, 'eth_getBalance', [to, 'latest']), '0x3039');
    assert.equal(await stop(first), 0, first.log());
    // The first start wrote its own code cache (the prefix is writable) ...
    const own = seed.replace(/-seed$/, '');
    assert.ok(readdirSync(bundleDir).includes(own), `no ${own} after a start`);
    const written = statSync(join(bundleDir, own)).mtimeMs;

    // The existing home again: the chain and the transfer are still there.
    const second = await start(home);
    assert.ok(Number(await rpcResult<string>(second.url, 'eth_blockNumber')) >= Number(receipt.blockNumber));
    assert.equal(await rpcResult<string>(second.url, 'eth_getBalance', [to, 'latest']), '0x3039');
    assert.equal(await stop(second), 0, second.log());
    // ... which the second accepted (V8 rejects a cache made under other flags; a rejected one is rewritten).
    assert.equal(statSync(join(bundleDir, own)).mtimeMs, written, 'the start code cache was rejected and rewritten');
  });
});
