// Startup to first answer, as users type it: each path starts `kestreld start --dev` on a fresh home, then again on
// that (now existing) home, N times, timing spawn → first eth_blockNumber reply in wall time and in CPU time (the
// process tree's: npm's and npx's own cost counts; the figure a busy machine distorts least).
// Paths: `node bin/kestreld.js` (the launcher itself), `npm start` (its build check, then the launcher), `npx
// kestreld` (the README's old form), `kestreld` from a global link (the layout `npm link` makes, built in a
// temporary prefix here: a real `npm link` also runs an install, which a bench must not do to the checkout), and
// `kestreld` from `npm i -g` of the packed tarball (`tarball`: the checkout's current build packed with
// --ignore-scripts, so the checkout is not rebuilt, then installed into a temporary prefix with --prefer-offline:
// no sources, no devDependencies; about a minute of setup, mostly c-kzg compiling).
// `npm-floor` is no Kestrel at all: `npm start` of a package whose start script is a dozen-line node:http server
// answering eth_blockNumber, the least any `npm start` can take to a first answer on this machine and Node (both rows
// alike: it has no home).
// Usage: node --import tsx bench/startup.ts [runs=5] [path ...] [--against DIR] with paths among node, npm-start,
// npx, global, tarball, npm-floor. The runs alternate between paths, so the comparison is fair on a busy machine. --against DIR
// times another built checkout (A, e.g. a worktree of main) beside this one (B), alternating A and B run by run
// (`tarball` needs a checkout whose package.json ships dist/).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { kestrelStart } from './nodes/kestrel.ts';
import { spawnNode } from './nodes/process.ts';
import { REPO_ROOT } from './nodes/paths.ts';
import { staleReason } from '../scripts/build.mjs';

const PATHS = ['node', 'npm-start', 'npx', 'global', 'tarball', 'npm-floor'] as const;
type PathName = (typeof PATHS)[number];
const argv = process.argv.slice(2);
const againstAt = argv.indexOf('--against');
const against = againstAt >= 0 ? argv.splice(againstAt, 2)[1] : undefined;
if (againstAt >= 0 && against === undefined) throw new Error('--against needs a directory');
const runs = Number(argv[0] ?? 5);
const chosen = (argv.length > 1 ? argv.slice(1) : [...PATHS]) as PathName[];
for (const p of chosen) if (!PATHS.includes(p)) throw new Error(`unknown path ${p}; known: ${PATHS.join(', ')}`);

/** A checkout under test: its root, the global prefix linking it, and the prefix its tarball is installed in. */
interface Checkout {
  label: string;
  root: string;
  prefix: string;
  installed?: string;
  env: NodeJS.ProcessEnv;
}

/** The global link: <prefix>/lib/node_modules/kestrel → the checkout, <prefix>/bin/kestreld → its bin script. */
function checkout(label: string, root: string): Checkout {
  const prefix = mkdtempSync(join(tmpdir(), 'kestrel-prefix-'));
  mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
  mkdirSync(join(prefix, 'bin'));
  symlinkSync(root, join(prefix, 'lib', 'node_modules', 'kestrel'));
  symlinkSync('../lib/node_modules/kestrel/bin/kestreld.js', join(prefix, 'bin', 'kestreld'));
  const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  const installed = chosen.includes('tarball') ? install(root, env) : undefined;
  return { label, root, prefix, installed, env };
}

/** `npm pack` of `root`'s current build (no rebuild) installed with `npm i -g` into a new prefix; returns the prefix. */
function install(root: string, env: NodeJS.ProcessEnv): string {
  const stale = staleReason(join(root, 'src'), join(root, 'dist'));
  if (stale !== undefined) throw new Error(`${root}: ${stale}; build it first`);
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-tarball-'));
  // npm's notices (the tarball's file list) would bury the figures: its output is shown only when it fails.
  const npm = (args: string[], cwd: string) => {
    try {
      execFileSync('npm', args, { cwd, env, stdio: 'pipe', maxBuffer: 64 << 20 });
    } catch (e) {
      const { stdout = '', stderr = '' } = e as { stdout?: Buffer | string; stderr?: Buffer | string };
      throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${String(stdout)}\n${String(stderr)}`);
    }
  };
  const t = Date.now();
  npm(['pack', '--ignore-scripts', '--pack-destination', dir], root);
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (tgz === undefined) throw new Error(`npm pack in ${root} wrote no tarball`);
  const installed = join(dir, 'prefix');
  npm(
    ['install', '--global', '--prefix', installed, '--prefer-offline', '--no-audit', '--no-fund', join(dir, tgz)],
    dir,
  );
  console.log(`${root}: packed and installed in ${Date.now() - t} ms (${installed})`);
  return installed;
}
/**
 * The package of the npm-floor path: `npm start -- <port>` runs a node:http server on 127.0.0.1:<port> answering
 * every request with eth_blockNumber's shape.
 */
function floorPackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-npm-floor-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'npm-floor', version: '1.0.0', private: true, scripts: { start: 'node server.js' } }),
  );
  const server = `require('node:http')
  .createServer((req, res) => {
    req.resume().on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"jsonrpc":"2.0","id":1,"result":"0x0"}');
    });
  })
  .listen(Number(process.argv[2]), '127.0.0.1');
`;
  writeFileSync(join(dir, 'server.js'), server);
  return dir;
}
const floorDir = chosen.includes('npm-floor') ? floorPackage() : undefined;

const checkouts =
  against === undefined ? [checkout('', REPO_ROOT)] : [checkout('A ', resolve(against)), checkout('B ', REPO_ROOT)];

/** The command line a user types for `path`, given the launcher arguments (`bin/kestreld.js start --dev ...`). */
function command(path: PathName, args: string[], url: string, co: Checkout): [string, string[]] {
  const rest = args.slice(1); // start --dev --home ... listeners
  switch (path) {
    case 'node':
      return [process.execPath, args];
    case 'npm-start':
      // `npm start -- x` appends x to the script's last command: `node bin/kestreld.js start --dev x`.
      return ['npm', ['start', '--silent', '--', ...rest.slice(2)]];
    case 'npx':
      return ['npx', ['kestreld', ...rest]];
    case 'global':
      return [join(co.prefix, 'bin', 'kestreld'), rest];
    case 'tarball':
      return [join(co.installed!, 'bin', 'kestreld'), rest];
    case 'npm-floor':
      return ['npm', ['start', '--silent', '--', new URL(url).port]];
  }
}

interface Sample {
  wall: number;
  cpu: number;
}

async function once(path: PathName, home: string, co: Checkout): Promise<Sample> {
  const { url, args } = await kestrelStart('bin/kestreld.js', home);
  const [cmd, cmdArgs] = command(path, args, url, co);
  const cwd = path === 'npm-floor' ? floorDir! : co.root;
  const s = await spawnNode(`kestrel (${path})`, cmd, cmdArgs, url, { cwd, env: co.env, group: true });
  await s.stop();
  return { wall: s.startupMs, cpu: s.startupCpuMs };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fmt = (xs: Sample[]): string =>
  `wall median ${median(xs.map((x) => x.wall)).toFixed(0)} ms, CPU median ${median(xs.map((x) => x.cpu)).toFixed(0)} ms ` +
  `(wall/CPU: ${xs.map((x) => `${x.wall.toFixed(0)}/${x.cpu.toFixed(0)}`).join(', ')})`;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);
const rows = checkouts.flatMap((co) => chosen.map((p) => ({ co, p, fresh: [] as Sample[], existing: [] as Sample[] })));
try {
  for (let i = 0; i < runs; i++) {
    for (const row of rows) {
      const base = mkdtempSync(join(tmpdir(), 'kestrel-startup-'));
      try {
        row.fresh.push(await once(row.p, join(base, 'home'), row.co));
        row.existing.push(await once(row.p, join(base, 'home'), row.co));
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    }
    console.log(`run ${i + 1}/${runs} done, load average ${load()}`);
  }
} finally {
  if (floorDir !== undefined) rmSync(floorDir, { recursive: true, force: true });
  for (const co of checkouts) {
    rmSync(co.prefix, { recursive: true, force: true });
    if (co.installed !== undefined) rmSync(dirname(co.installed), { recursive: true, force: true });
  }
}
for (const co of checkouts) if (co.label) console.log(`${co.label.trim()}: ${co.root}`);
for (const { co, p, fresh, existing } of rows) {
  console.log(`${co.label}${p.padEnd(9)} fresh --dev home: ${fmt(fresh)}`);
  console.log(`${co.label}${p.padEnd(9)} existing home:    ${fmt(existing)}`);
}
console.log(`load average after: ${load()}`);
