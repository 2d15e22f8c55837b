// A real validator network for integration tests: `kestreld testnet` lays it out on a block of free loopback ports,
// and each node's app + CometBFT are started and killed here by PID (not by the supervisor, so a test can keep a
// validator down). Logs go to files in the testnet directory and are printed when a test fails.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTomlValue } from '../../src/config/appToml.ts';
import { homePaths, initHome } from '../../src/node/home.ts';
import { appConfigValues, cometConfigValues, DEFAULT_COMETBFT, editCometConfig } from '../../src/testnet/layout.ts';
import { nodeCommands, nodeFiles, readManifest, type Manifest, type ManifestNode } from '../../src/testnet/manifest.ts';
import { planPorts, PORT_OFFSETS, PORT_STRIDE } from '../../src/testnet/ports.ts';
import { stateSyncValues, type StateSyncTrust } from '../../src/testnet/stateSync.ts';
import { portAccepts } from '../../src/testnet/processes.ts';
import { REPO_ROOT, rpcResult, settlesWithin, sleep, waitFor } from './node.ts';

export { DEFAULT_COMETBFT as COMETBFT_BIN };

/** Why the CometBFT tests cannot run here (binary missing outside CI), or false when they can. */
export function cometbftMissing(): string | false {
  if (existsSync(DEFAULT_COMETBFT) || process.env.CI === 'true') return false;
  return 'CometBFT not installed: run npm run cometbft:install';
}

const APP_START_MS = 60_000;
const LOG_TAIL_CHARS = 12_000;

// Every process this test process started, so nothing outlives it even when a test aborts.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of live) p.kill('SIGKILL');
  });
}

function listenOn(port: number): Promise<Server | undefined> {
  return new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => res(undefined));
    srv.listen(port, '127.0.0.1', () => res(srv));
  });
}

/** A base port whose whole block (validators × PORT_STRIDE ports) was free a moment ago. */
export async function freePortBlock(validators: number): Promise<number> {
  const size = validators * PORT_STRIDE;
  for (let attempt = 0; attempt < 50; attempt++) {
    // Stay below the usual ephemeral range (32768+) so outgoing connections do not take our ports meanwhile.
    const base = 10_000 + Math.floor(Math.random() * (32_000 - 10_000 - size));
    const held: Server[] = [];
    let ok = true;
    for (let p = base; p < base + size && ok; p++) {
      const srv = await listenOn(p);
      if (srv) held.push(srv);
      else ok = false;
    }
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
    if (ok) return base;
  }
  throw new Error(`no free block of ${size} ports found`);
}

/** JSON-RPC POST to a CometBFT RPC endpoint; returns `result` or throws with the error. */
export async function cometRpc<T = any>(url: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

/** One validator: its app and CometBFT, started and killed together or separately. */
export class CometNode {
  app: ChildProcess | undefined;
  comet: ChildProcess | undefined;
  readonly eth: string;
  readonly rpc: string;

  constructor(
    readonly net: CometNet,
    readonly spec: ManifestNode,
  ) {
    this.eth = `http://127.0.0.1:${spec.ports.ethHttp}`;
    this.rpc = `http://127.0.0.1:${spec.ports.rpc}`;
  }

  get name(): string {
    return this.spec.name;
  }

  private spawnLogged(argv: string[], log: string): ChildProcess {
    const fd = openSync(log, 'a');
    writeSync(fd, `\n----- ${new Date().toISOString()} starting: ${argv.join(' ')}\n`);
    const p = spawn(argv[0]!, argv.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    live.add(p);
    p.once('exit', () => live.delete(p));
    return p;
  }

  /** Starts the app, waits for its ABCI port, then starts CometBFT. */
  async start(): Promise<void> {
    if (this.running()) throw new Error(`${this.name} is already running`);
    const cmd = nodeCommands(this.net.dir, this.net.manifest, this.spec);
    const f = nodeFiles(this.net.dir, this.spec);
    const app = this.spawnLogged(cmd.app, f.appLog);
    this.app = app;
    const deadline = Date.now() + APP_START_MS;
    while (!(await portAccepts(this.spec.ports.abci))) {
      if (app.exitCode !== null || app.signalCode !== null)
        throw new Error(`${this.name}: app exited during startup\n${this.logs()}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name}: app did not open its ABCI port within ${APP_START_MS} ms\n${this.logs()}`);
      await sleep(100);
    }
    this.comet = this.spawnLogged(cmd.comet, f.cometLog);
  }

  /** Starts CometBFT alone (its app still runs: after a kill -9 of CometBFT only). */
  startComet(): void {
    if (this.comet && this.comet.exitCode === null && this.comet.signalCode === null)
      throw new Error(`${this.name}: CometBFT is already running`);
    this.comet = this.spawnLogged(
      nodeCommands(this.net.dir, this.net.manifest, this.spec).comet,
      nodeFiles(this.net.dir, this.spec).cometLog,
    );
  }

  /** kill -9 of CometBFT only, waiting for its exit. */
  async killComet(): Promise<void> {
    await killAndWait(this.comet);
  }

  /** SIGSTOP (true) or SIGCONT (false) to both processes. */
  pause(stopped: boolean): void {
    for (const p of [this.comet, this.app])
      if (p && p.exitCode === null && p.signalCode === null) p.kill(stopped ? 'SIGSTOP' : 'SIGCONT');
  }

  /** SIGTERM to both (CometBFT first), SIGKILL after `graceMs` (CometBFT's shutdown may hang, #4054). */
  async stop(graceMs = 10_000): Promise<void> {
    for (const p of [this.comet, this.app]) {
      if (!p || p.exitCode !== null || p.signalCode !== null) continue;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      if (!(await settlesWithin(exited, graceMs))) await killAndWait(p);
    }
  }

  /** True when both processes run. */
  running(): boolean {
    return [this.app, this.comet].every((p) => p !== undefined && p.exitCode === null && p.signalCode === null);
  }

  /** SIGKILLs the app (only) and waits for it to exit. */
  async killApp(): Promise<void> {
    await killAndWait(this.app);
  }

  /**
   * After the app died: gives CometBFT `graceMs` to exit by itself (it stops when its app connection drops), then
   * SIGKILLs it — its own shutdown sometimes hangs on the dead connection (cometbft/cometbft#4054), which is why the
   * supervisor stops a pair together. Resolves to true when it exited by itself.
   */
  async cometStopsAfterApp(graceMs: number): Promise<boolean> {
    const p = this.comet;
    if (!p || p.exitCode !== null || p.signalCode !== null) return true;
    const exited = new Promise((r) => p.once('exit', r));
    const byItself = await settlesWithin(exited, graceMs);
    if (!byItself) await killAndWait(p);
    return byItself;
  }

  /** kill -9 of both processes (CometBFT first, then the app), waiting for both exits. */
  async kill(): Promise<void> {
    await killAndWait(this.comet);
    await killAndWait(this.app);
  }

  /** CometBFT's latest height, or undefined while its RPC does not answer. */
  async height(): Promise<number | undefined> {
    try {
      const s = await cometRpc(this.rpc, 'status');
      return Number(s.sync_info.latest_block_height);
    } catch {
      return undefined;
    }
  }

  /** Waits until this node's CometBFT reports at least `h`. */
  async waitHeight(h: number, timeoutMs: number): Promise<number> {
    return waitFor(
      `${this.name} at height ${h}`,
      async () => {
        const got = await this.height();
        return got !== undefined && got >= h ? got : undefined;
      },
      timeoutMs,
    );
  }

  /** Waits until this node has caught up to `h`: CometBFT no longer catching up, and the app's eth head at `h`. */
  async waitCaughtUp(h: number, timeoutMs: number): Promise<void> {
    await waitFor(
      `${this.name} caught up to ${h}`,
      async () => {
        await sleep(150); // the poll's own load stays small beside a node that is syncing
        try {
          const s = await cometRpc(this.rpc, 'status');
          if (s.sync_info.catching_up || Number(s.sync_info.latest_block_height) < h) return undefined;
          return Number(await rpcResult(this.eth, 'eth_blockNumber', [])) >= h ? true : undefined;
        } catch {
          return undefined;
        }
      },
      timeoutMs,
    );
  }

  /** The tails of this node's app and CometBFT logs. */
  logs(): string {
    const f = nodeFiles(this.net.dir, this.spec);
    const tail = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').slice(-LOG_TAIL_CHARS) : '(no log)');
    return `--- ${this.name} app.log (${f.appLog})\n${tail(f.appLog)}\n--- ${this.name} cometbft.log (${f.cometLog})\n${tail(f.cometLog)}`;
  }
}

async function killAndWait(p: ChildProcess | undefined): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGKILL');
  await exited;
}

/** A laid-out validator network with its nodes. */
export class CometNet {
  readonly nodes: CometNode[];

  private constructor(
    readonly base: string,
    readonly dir: string,
    readonly manifest: Manifest,
  ) {
    this.nodes = manifest.nodes.map((n) => new CometNode(this, n));
  }

  /** Runs `kestreld testnet` (the real CLI) on a free port block in a fresh temp directory. */
  static create(opts: { validators: number; basePort: number; args?: string[] }): CometNet {
    installExitHook();
    const base = mkdtempSync(join(tmpdir(), 'kestrel-cometnet-'));
    const dir = join(base, 'net');
    const args = [
      'bin/kestreld.js',
      'testnet',
      '--validators',
      String(opts.validators),
      '--output',
      dir,
      '--base-port',
      String(opts.basePort),
      '--dev',
      ...(opts.args ?? []),
    ];
    const r = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) {
      rmSync(base, { recursive: true, force: true });
      throw new Error(`kestreld testnet failed (${r.status}): ${r.stderr}`);
    }
    return new CometNet(base, dir, readManifest(dir));
  }

  /**
   * Lays out a non-validator node `node<i>` (the i-th port block, so `freePortBlock` must have reserved i + 1) that
   * peers with the validators and joins by block sync from genesis, or by state sync when `trust` is given.
   */
  addNode(i: number, o: { timeoutCommit: string; trust?: StateSyncTrust }): CometNode {
    const name = `node${i}`;
    const ports = planPorts(this.manifest.nodes[0]!.ports.ethHttp - PORT_OFFSETS.ethHttp, i + 1)[i]!;
    const spec: ManifestNode = { name, nodeId: '', ports, cometHome: `${name}/cometbft`, appHome: `${name}/kestrel` };
    const cometHome = join(this.dir, spec.cometHome);
    const appHome = join(this.dir, spec.appHome);
    mkdirSync(join(this.dir, name), { recursive: true });
    execFileSync(DEFAULT_COMETBFT, ['init', '--home', cometHome], { stdio: 'ignore' });
    const v0 = this.nodes[0]!.spec;
    copyFileSync(join(this.dir, v0.cometHome, 'config', 'genesis.json'), join(cometHome, 'config', 'genesis.json'));
    const peers = this.nodes.map((n) => `${n.spec.nodeId}@127.0.0.1:${n.spec.ports.p2p}`).join(',');
    const values = cometConfigValues({ timeoutCommit: o.timeoutCommit, timeoutPropose: '1s' }, name, ports, peers);
    if (o.trust) values.push(...stateSyncValues(o.trust));
    editCometConfig(join(cometHome, 'config', 'config.toml'), values);
    spec.nodeId = execFileSync(DEFAULT_COMETBFT, ['show-node-id', '--home', cometHome], { encoding: 'utf8' }).trim();
    initHome(appHome, { chainId: this.manifest.chainId, dev: true, overwrite: true });
    copyFileSync(homePaths(join(this.dir, v0.appHome)).genesis, homePaths(appHome).genesis);
    for (const [s, k, v] of appConfigValues(ports)) setTomlValue(homePaths(appHome).appToml, s, k, v);
    return new CometNode(this, spec);
  }

  /** Starts every node (apps in parallel). */
  async startAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.start()));
  }

  /** Prints every node's log tails to stderr. */
  printLogs(reason: string): void {
    process.stderr.write(`\n===== validator network logs (${reason}; ${this.dir}) =====\n`);
    for (const n of this.nodes) process.stderr.write(n.logs() + '\n');
    process.stderr.write('===== end of validator network logs =====\n');
  }

  /** Kills every process by PID and removes the directory. */
  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    rmSync(this.base, { recursive: true, force: true });
  }
}
