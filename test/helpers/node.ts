// Starts a real `kestreld start --dev` process on free ports for integration tests, and talks raw JSON-RPC to it.
// Never mocks the node: every test drives the actual binary through bin/kestreld.js.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (cwd of the node process). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const STARTUP_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const LOG_CAP_CHARS = 2_000_000;

export interface StartOptions {
  /** Home directory; default: a fresh, not-yet-existing directory under the OS tmpdir. */
  home?: string;
  /** Extra flags after the standard ones (e.g. ['--json-rpc.compat', 'ethermint']). */
  args?: string[];
  /** Extra environment variables for the child. */
  env?: Record<string, string>;
}

export interface KestrelNode {
  /** http://127.0.0.1:<port> */
  readonly http: string;
  /** ws://127.0.0.1:<port> */
  readonly ws: string;
  /** 127.0.0.1:<port> of the gRPC server (--grpc.address) */
  readonly grpc: string;
  /** http://127.0.0.1:<port> of the CometBFT-compatible RPC (--rpc.laddr) */
  readonly comet: string;
  readonly home: string;
  readonly proc: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far (tail-capped). */
  logs(): string;
  /** Writes the tail of the logs to stderr with a header (used when a test fails). */
  printLogs(reason: string): void;
  /** Sends the signal and waits for exit; resolves to the exit code (null when killed by a signal). */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
  /** Stops (SIGTERM) if still running, then starts again on the same home with the same args (new ports). */
  restart(): Promise<KestrelNode>;
  /** SIGKILLs if running and removes the temporary home this helper created. Safe to call twice. */
  dispose(): Promise<void>;
}

// Every child ever spawned by this process, so nothing outlives the test file.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const p of live) {
      try {
        p.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAll();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}

/** A port that was free a moment ago on 127.0.0.1 (listen on :0, read, close). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') {
        srv.close();
        rej(new Error('no port'));
        return;
      }
      const port = addr.port;
      srv.close(() => res(port));
    });
  });
}

async function distinctFreePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const p = await freePort();
    if (!ports.includes(p)) ports.push(p);
  }
  return ports;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * True when `done` settles within `ms`, false when the time runs out first. Its timer is cleared either way, so a
 * race the process wins leaves nothing to hold the test file open afterwards.
 */
export async function settlesWithin(done: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((res) => (timer = setTimeout(() => res(false), ms)));
  try {
    return await Promise.race([done.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a dev node and waits until eth_blockNumber answers over HTTP. */
export async function startNode(opts: StartOptions = {}): Promise<KestrelNode> {
  installExitHook();
  let tmpBase: string | undefined;
  let home = opts.home;
  if (home === undefined) {
    tmpBase = mkdtempSync(join(tmpdir(), 'kestrel-test-'));
    home = join(tmpBase, 'home'); // absent on purpose: --dev creates it on first start
  }
  try {
    return await launchOnFreePorts(home, opts, tmpBase);
  } catch (e) {
    if (tmpBase !== undefined) rmSync(tmpBase, { recursive: true, force: true });
    throw e;
  }
}

/** The node exited at startup because a port it was given was taken meanwhile (see launchOnFreePorts). */
class PortTakenError extends Error {}

const PORT_ATTEMPTS = 3;
const ADDRESS_FLAGS = new Set([
  '--json-rpc.address',
  '--json-rpc.ws-address',
  '--grpc.address',
  '--rpc.laddr',
  '--abci.laddr',
]);

/**
 * Launches on fresh free ports, again on new ones if a port was taken between the probe and the node's bind: on a
 * machine running other tests, another process's listener or outgoing connection can take a port in that window.
 * The node's own answer to a taken port (exit 1 naming the address) is covered by listeners.test.ts.
 */
async function launchOnFreePorts(home: string, opts: StartOptions, tmpBase: string | undefined): Promise<KestrelNode> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(home, opts, tmpBase);
    } catch (e) {
      if (!(e instanceof PortTakenError) || attempt >= PORT_ATTEMPTS) throw e;
      process.stderr.write(`# ${e.message}; retrying on new ports (attempt ${attempt + 1} of ${PORT_ATTEMPTS})\n`);
    }
  }
}

async function launch(home: string, opts: StartOptions, tmpBase: string | undefined): Promise<KestrelNode> {
  const [httpPort, wsPort, grpcPort, cometPort] = (await distinctFreePorts(4)) as [number, number, number, number];
  const args = [
    'bin/kestreld.js',
    'start',
    '--dev',
    '--home',
    home,
    '--json-rpc.address',
    `127.0.0.1:${httpPort}`,
    '--json-rpc.ws-address',
    `127.0.0.1:${wsPort}`,
    '--grpc.address',
    `127.0.0.1:${grpcPort}`,
    '--rpc.laddr',
    `tcp://127.0.0.1:${cometPort}`,
    ...(opts.args ?? []),
  ];
  const proc = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  let log = '';
  const append = (prefix: string) => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    log += text
      .split('\n')
      .map((l, i, arr) => (i === arr.length - 1 && l === '' ? '' : `${prefix}${l}`))
      .join('\n');
    if (log.length > LOG_CAP_CHARS) log = log.slice(log.length - LOG_CAP_CHARS);
  };
  proc.stdout!.on('data', append('[out] '));
  proc.stderr!.on('data', append('[err] '));
  let exitCode: number | null | undefined; // undefined while running
  let exitSignal: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((res) => {
    proc.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      live.delete(proc);
      res(code);
    });
    proc.on('error', (err) => {
      log += `\n[spawn error] ${err.stack ?? String(err)}\n`;
    });
  });

  const http = `http://127.0.0.1:${httpPort}`;
  const ws = `ws://127.0.0.1:${wsPort}`;
  const grpc = `127.0.0.1:${grpcPort}`;
  const comet = `http://127.0.0.1:${cometPort}`;
  const printLogs = (reason: string) => {
    const tail = log.length > 20_000 ? '…' + log.slice(-20_000) : log;
    process.stderr.write(
      `\n===== kestreld logs (${reason}; home ${home}; pid ${proc.pid}; http ${http}) =====\n${tail}\n===== end of kestreld logs =====\n`,
    );
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<number | null> => {
    if (exitCode !== undefined) return exitCode;
    proc.kill(signal);
    if (!(await settlesWithin(exited, STOP_TIMEOUT_MS))) {
      proc.kill('SIGKILL');
      await exited;
      printLogs(`did not exit within ${STOP_TIMEOUT_MS} ms of ${signal}`);
      throw new Error(`kestreld (pid ${proc.pid}) did not exit within ${STOP_TIMEOUT_MS} ms of ${signal}`);
    }
    return exited;
  };

  const node: KestrelNode = {
    http,
    ws,
    grpc,
    comet,
    home,
    proc,
    logs: () => log,
    printLogs,
    stop,
    async restart() {
      await stop('SIGTERM');
      return launchOnFreePorts(home, opts, tmpBase);
    },
    async dispose() {
      if (exitCode === undefined) {
        proc.kill('SIGKILL');
        await exited;
      }
      if (tmpBase !== undefined) rmSync(tmpBase, { recursive: true, force: true });
    },
  };

  // Wait until eth_blockNumber answers (bounded); fail fast if the process dies.
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let lastErr = '';
  while (true) {
    if (exitCode !== undefined) {
      // Only ports this helper picked are retried; a test that passes its own addresses wants to see the failure.
      const ownAddresses = (opts.args ?? []).some((a) => ADDRESS_FLAGS.has(a.split('=')[0]!));
      if (exitCode === 1 && /EADDRINUSE/.test(log) && !ownAddresses) {
        throw new PortTakenError(`kestreld exited at startup: a port was taken between the probe and its bind`);
      }
      printLogs('exited during startup');
      throw new Error(
        `kestreld exited during startup (code ${exitCode}, signal ${exitSignal}); args: ${args.join(' ')}`,
      );
    }
    try {
      const r = await rpc(http, 'eth_blockNumber', [], { timeoutMs: 2000 });
      if (typeof r.result === 'string') return node;
      lastErr = JSON.stringify(r);
    } catch (e) {
      lastErr = e instanceof Error ? e.message : String(e);
    }
    if (Date.now() > deadline) {
      printLogs('startup timeout');
      proc.kill('SIGKILL');
      await exited;
      throw new Error(`kestreld did not answer eth_blockNumber within ${STARTUP_TIMEOUT_MS} ms (last: ${lastErr})`);
    }
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Raw JSON-RPC over HTTP

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcResponse<T = unknown> {
  jsonrpc: string;
  id: unknown;
  result?: T;
  error?: RpcError;
}

let nextId = 1;

/** Posts one JSON-RPC request and returns the full response object (result or error). */
export async function rpc<T = unknown>(
  url: string,
  method: string,
  params: unknown[] = [],
  opts: { timeoutMs?: number } = {},
): Promise<RpcResponse<T>> {
  const id = nextId++;
  const res = await post(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }), opts);
  if (res.json === undefined) {
    throw new Error(`${method}: HTTP ${res.status}, body is not JSON: ${res.text.slice(0, 500)}`);
  }
  return res.json as RpcResponse<T>;
}

/** Like rpc() but returns `result` and throws (with the error object) on a JSON-RPC error. */
export async function rpcResult<T = any>(
  url: string,
  method: string,
  params: unknown[] = [],
  opts: { timeoutMs?: number } = {},
): Promise<T> {
  const r = await rpc<T>(url, method, params, opts);
  if (r.error !== undefined) {
    throw new Error(`${method}(${JSON.stringify(params).slice(0, 300)}) failed: ${JSON.stringify(r.error)}`);
  }
  if (!('result' in r)) throw new Error(`${method}: response has neither result nor error: ${JSON.stringify(r)}`);
  return r.result as T;
}

export interface RawHttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body, or undefined when the body is empty or not JSON. */
  json: unknown;
}

/** POSTs an arbitrary body (string or bytes) with Content-Type application/json unless overridden. */
export async function post(
  url: string,
  body: string | Uint8Array,
  opts: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<RawHttpResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
  });
  const text = await res.text();
  let json: unknown;
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * POSTs over a raw TCP socket and returns the status line and body the server sent, even when the server
 * answers before reading the whole upload and resets the connection (what a server does when it rejects an
 * oversize body with 413 — node:http and fetch then report ECONNRESET and lose the response).
 * `chunked` sends Transfer-Encoding: chunked instead of Content-Length, so the server must count bytes.
 */
export function postRaw(
  url: string,
  body: string | Buffer,
  opts: { chunked?: boolean; timeoutMs?: number } = {},
): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((res, rej) => {
    const sock = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(
      () => sock.destroy(new Error(`no complete response within ${opts.timeoutMs ?? 15_000} ms`)),
      opts.timeoutMs ?? 15_000,
    );
    const finish = (err?: Error) => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      if (!m) {
        rej(err ?? new Error(`no HTTP response (got ${JSON.stringify(raw.slice(0, 200))})`));
        return;
      }
      const sep = raw.indexOf('\r\n\r\n');
      res({ status: Number(m[1]), text: sep >= 0 ? raw.slice(sep + 4) : '' });
    };
    sock.on('data', (d: Buffer) => {
      chunks.push(d);
      // One response is all we want; stop once the head and a complete-looking body have arrived.
      const raw = Buffer.concat(chunks).toString('utf8');
      const sep = raw.indexOf('\r\n\r\n');
      const len = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, sep));
      if (sep >= 0 && len && Buffer.byteLength(raw.slice(sep + 4)) >= Number(len[1])) sock.destroy();
    });
    sock.on('error', () => {
      /* EPIPE/ECONNRESET while uploading: the response (if any) is already in `chunks` */
    });
    sock.on('close', () => finish());
    sock.on('connect', () => {
      const head =
        `POST ${u.pathname || '/'} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nConnection: close\r\n` +
        (opts.chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${buf.length}\r\n\r\n`);
      sock.write(head);
      const writeBody = () => {
        const step = 256 * 1024;
        for (let i = 0; i < buf.length && !sock.destroyed; i += step) {
          const part = buf.subarray(i, i + step);
          sock.write(
            opts.chunked
              ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')])
              : part,
          );
        }
        if (opts.chunked && !sock.destroyed) sock.write('0\r\n\r\n');
      };
      // With a Content-Length the server may answer from the headers alone; give it a moment first so our
      // upload cannot race its answer (a reset with unread upload data can make the kernel drop the answer).
      if (opts.chunked) writeBody();
      else
        setTimeout(() => {
          if (chunks.length === 0 && !sock.destroyed) writeBody();
        }, 300);
    });
  });
}

/** Polls `fn` until it returns a value other than undefined/null, or throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const v = await fn();
    if (v !== undefined && v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Waits until eth_getTransactionReceipt returns a receipt for `hash`. */
export async function waitForReceipt(url: string, hash: string, timeoutMs = 15_000): Promise<any> {
  return waitFor(`receipt of ${hash}`, () => rpcResult(url, 'eth_getTransactionReceipt', [hash]), timeoutMs);
}

export { sleep };

/**
 * An afterEach hook that prints the node's logs when the test just run failed:
 * `afterEach(printLogsOnFailure(() => node))`. (TestContext.passed exists at runtime on Node ≥ 20.12 but
 * is missing from @types/node 20.)
 */
export function printLogsOnFailure(getNodes: () => KestrelNode | undefined | Array<KestrelNode | undefined>) {
  return (t: unknown): void => {
    const ctx = t as { passed?: boolean; name?: string };
    if (ctx.passed !== false) return;
    const nodes = getNodes();
    for (const n of Array.isArray(nodes) ? nodes : [nodes]) n?.printLogs(`failed: ${ctx.name ?? '?'}`);
  };
}
