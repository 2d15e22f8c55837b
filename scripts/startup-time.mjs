#!/usr/bin/env node
// Time from spawning `kestreld start --dev` to its first answered eth_blockNumber, on a fresh home and on an
// existing one (medians of N runs), in wall time and in the process's CPU time. Usage: node scripts/startup-time.mjs [runs=5] [extra kestreld args...]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 5);
const extra = process.argv.slice(3);

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** CPU time (user + system) a process has used so far, in ms (Linux /proc). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function once(home) {
  const [http, ws, grpc, comet] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const args = [
    'bin/kestreld.js',
    'start',
    '--dev',
    '--home',
    home,
    '--json-rpc.address',
    `127.0.0.1:${http}`,
    '--json-rpc.ws-address',
    `127.0.0.1:${ws}`,
    '--grpc.address',
    `127.0.0.1:${grpc}`,
    '--rpc.laddr',
    `tcp://127.0.0.1:${comet}`,
    ...extra,
  ];
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { cwd: root, stdio: 'ignore' });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  try {
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${http}`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
        if ((await r.json()).result !== undefined) return { wall: performance.now() - t0, cpu: cpuMs(proc.pid) };
      } catch {
        /* not listening yet */
      }
      if (proc.exitCode !== null) throw new Error(`kestreld exited with ${proc.exitCode}`);
      if (performance.now() - t0 > 60_000) throw new Error('no answer within 60 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fresh = [];
const existing = [];
for (let i = 0; i < runs; i++) {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-startup-'));
  const home = join(base, 'home');
  try {
    fresh.push(await once(home));
    existing.push(await once(home));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
// Wall time is what a user waits; CPU time (of the kestreld process) is what a busy machine does not distort.
const fmt = (xs) =>
  `wall median ${median(xs.map((x) => x.wall)).toFixed(0)} ms, CPU median ${median(xs.map((x) => x.cpu)).toFixed(0)} ms ` +
  `(runs: ${xs.map((x) => `${x.wall.toFixed(0)}/${x.cpu.toFixed(0)}`).join(', ')})`;
console.log(`fresh --dev home: ${fmt(fresh)}`);
console.log(`existing home:    ${fmt(existing)}`);
