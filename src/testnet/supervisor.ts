// The testnet supervisor: runs every validator's app + CometBFT pair, writes their pids and logs into the testnet
// directory, and restarts a pair together when either process dies (CometBFT exits when its app connection drops,
// and an app without its CometBFT makes no blocks). SIGTERM/SIGINT stop every pair and the supervisor.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, writeSync } from 'node:fs';
import {
  nodeCommands,
  nodeFiles,
  readManifest,
  supervisorFiles,
  type Manifest,
  type ManifestNode,
} from './manifest.ts';
import { portAccepts, removePid, terminate, writePid } from './processes.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** How long an app may take to open its ABCI port before CometBFT is started anyway (it redials every 3 s). */
const ABCI_WAIT_MS = 60_000;
/** SIGTERM grace before SIGKILL when stopping a process. */
const STOP_GRACE_MS = 10_000;
/** Restart backoff: doubles per quick failure, reset after a pair ran this long. */
const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
const STABLE_MS = 60_000;

type Say = (line: string) => void;

function spawnLogged(argv: string[], logPath: string): ChildProcess {
  const fd = openSync(logPath, 'a');
  try {
    writeSync(fd, `\n----- ${new Date().toISOString()} starting: ${argv.join(' ')}\n`);
    return spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd); // the child holds its own copy
  }
}

function exitOf(p: ChildProcess): Promise<string> {
  return new Promise((res) => {
    if (p.exitCode !== null || p.signalCode !== null) res(p.signalCode ?? `code ${p.exitCode}`);
    p.once('exit', (code, signal) => res(signal ?? `code ${code}`));
    p.once('error', (e) => res(`spawn error: ${e.message}`));
  });
}

/** One validator's app + CometBFT, restarted together. */
class Pair {
  private app: ChildProcess | undefined;
  private comet: ChildProcess | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  /** One stop per process: kestreld takes a second SIGTERM as "exit now", which would cut its graceful shutdown short. */
  private readonly ending = new Map<ChildProcess, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly manifest: Manifest,
    private readonly node: ManifestNode,
    private readonly say: Say,
  ) {}

  /** Starts the pair and keeps it running until stop(). */
  run(): void {
    this.loop = this.keepRunning();
  }

  private async keepRunning(): Promise<void> {
    let backoff = BACKOFF_MIN_MS;
    while (!this.stopping) {
      const started = Date.now();
      const why = await this.runOnce();
      if (this.stopping) break;
      if (Date.now() - started > STABLE_MS) backoff = BACKOFF_MIN_MS;
      this.say(`${this.node.name}: ${why}; restarting app and cometbft in ${backoff} ms`);
      await sleep(backoff);
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    }
  }

  /** Runs app then CometBFT; resolves (after stopping the survivor) when either exits. */
  private async runOnce(): Promise<string> {
    const f = nodeFiles(this.dir, this.node);
    const cmd = nodeCommands(this.dir, this.manifest, this.node);
    const app = spawnLogged(cmd.app, f.appLog);
    this.app = app;
    if (app.pid !== undefined) writePid(f.appPid, app.pid);
    const appExit = exitOf(app).then((how) => `app exited (${how})`);
    // Start CometBFT once the app listens, so its first dial succeeds instead of waiting for the 3 s redial.
    const deadline = Date.now() + ABCI_WAIT_MS;
    let appGone: string | undefined;
    void appExit.then((w) => (appGone = w));
    while (
      !this.stopping &&
      appGone === undefined &&
      Date.now() < deadline &&
      !(await portAccepts(this.node.ports.abci))
    ) {
      await sleep(200);
    }
    let comet: ChildProcess | undefined;
    let why: string;
    if (this.stopping || appGone !== undefined) {
      why = appGone ?? 'stopping';
    } else {
      comet = spawnLogged(cmd.comet, f.cometLog);
      this.comet = comet;
      if (comet.pid !== undefined) writePid(f.cometPid, comet.pid);
      this.say(`${this.node.name}: app pid ${app.pid}, cometbft pid ${comet.pid}`);
      why = await Promise.race([appExit, exitOf(comet).then((how) => `cometbft exited (${how})`)]);
    }
    await Promise.all([app, comet].map((p) => this.end(p)));
    this.ending.clear();
    removePid(f.appPid);
    removePid(f.cometPid);
    this.app = this.comet = undefined;
    return why;
  }

  /** SIGTERM (SIGKILL after the grace) unless the process has exited or is already being stopped. */
  private end(p: ChildProcess | undefined): Promise<void> {
    if (p?.pid === undefined || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
    let done = this.ending.get(p);
    if (!done) {
      done = terminate(p.pid, STOP_GRACE_MS);
      this.ending.set(p, done);
    }
    return done;
  }

  /** Stops both processes and the restart loop. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([this.comet, this.app].map((p) => this.end(p)));
    await this.loop;
  }
}

/** Runs the supervisor in this process until SIGTERM/SIGINT; writes DIR/supervisor.pid while it runs. */
export async function superviseTestnet(
  dir: string,
  say: Say = (l) => console.log(`${new Date().toISOString()} ${l}`),
): Promise<void> {
  const manifest = readManifest(dir);
  const files = supervisorFiles(dir);
  writePid(files.pid, process.pid);
  const pairs = manifest.nodes.map((n) => new Pair(dir, manifest, n, say));
  say(`supervising ${pairs.length} validators of ${manifest.chainId} in ${dir}`);
  for (const p of pairs) p.run();
  await new Promise<void>((resolveStop) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      say(`${signal}: stopping every validator`);
      Promise.all(pairs.map((p) => p.stop())).finally(() => {
        removePid(files.pid);
        say('stopped');
        resolveStop();
      });
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}
