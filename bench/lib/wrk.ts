// Runs wrk (Debian's wrk 4.1) with a Lua script that POSTs one fixed JSON-RPC body, and parses its summary.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one wrk run reported. */
export interface WrkResult {
  requests: number;
  seconds: number;
  requestsPerSec: number;
  /** Mean latency in milliseconds. */
  latencyMeanMs: number;
  socketErrors: number;
  non2xx: number;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** Parses wrk's text summary; throws when the essential lines are missing. */
export function parseWrkOutput(text: string): WrkResult {
  const reqs = /(\d+) requests in ([\d.]+)(us|ms|s|m)\b/.exec(text);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!reqs || !rps) throw new Error(`unrecognised wrk output: ${text.slice(0, 300)}`);
  const lat = /Latency\s+([\d.]+)(us|ms|s|m)\b/.exec(text);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  return {
    requests: Number(reqs[1]),
    seconds: (Number(reqs[2]) * UNIT_MS[reqs[3]!]!) / 1000,
    requestsPerSec: Number(rps[1]),
    latencyMeanMs: lat ? Number(lat[1]) * UNIT_MS[lat[2]!]! : NaN,
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    non2xx: non2xx ? Number(non2xx[1]) : 0,
  };
}

/** The Lua script that makes wrk POST `body` as JSON. */
export function luaScript(body: string): string {
  if (body.includes(']==]')) throw new Error('body contains the Lua long-bracket terminator');
  return `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [==[${body}]==]\n`;
}

/** Installs Debian's wrk with apt-get when it is not on PATH; throws if that is impossible. */
export function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return;
  } catch (e) {
    // wrk --version exits 1 after printing its banner; only ENOENT means it is missing.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return;
  }
  process.stderr.write('wrk not found; installing it with apt-get\n');
  const asRoot = process.getuid?.() === 0;
  const run = (args: string[]) => {
    const cmd = asRoot ? args : ['sudo', ...args];
    execFileSync(cmd[0]!, cmd.slice(1), { stdio: 'inherit' });
  };
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', 'wrk']);
}

/** Runs wrk for `seconds` with `connections` against `url`, POSTing `body`; bounded by a hard kill. */
export function runWrk(url: string, body: string, connections: number, seconds: number): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-bench-wrk-'));
  const script = join(dir, 'post.lua');
  writeFileSync(script, luaScript(body));
  const threads = Math.min(2, connections);
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '5s', '-s', script, url];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), (seconds + 15) * 1000);
    child.on('error', (e) => {
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
      try {
        resolve(parseWrkOutput(out));
      } catch (e) {
        reject(new Error(`wrk exited ${code}: ${(e as Error).message}`));
      }
    });
  });
}
