// Startup to first answer on an existing home: spawns `node <launcher> start` N times on one --dev home and times
// spawn → first eth_blockNumber reply. Usage: node bench/startup.mjs [runs=7] [launcher=bin/kestreld.js ...].
// With several launchers (e.g. another checkout's bin/kestreld.js) the runs alternate, so the ratio is fair on a
// busy machine. Prints each launcher's runs and median.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 7);
const launchers = process.argv.length > 3 ? process.argv.slice(3) : ['bin/kestreld.js'];
const home = mkdtempSync(join(tmpdir(), 'kestrel-startup-'));
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function once(launcher) {
  const [http, ws, grpc, comet] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      launcher,
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
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  let gone = false;
  child.stderr.on('data', (d) => (stderr += d));
  child.once('exit', () => (gone = true));
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  for (;;) {
    if (gone) throw new Error(`${launcher} exited before answering:\n${stderr}`);
    try {
      const r = await fetch(`http://127.0.0.1:${http}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (r.ok) {
        await r.text();
        break;
      }
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const ms = performance.now() - t0;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

try {
  const first = await once(launchers[0]); // creates the home
  for (const l of launchers.slice(1)) await once(l); // warms each launcher's own caches
  const times = launchers.map(() => []);
  for (let i = 0; i < runs; i++) for (const [j, l] of launchers.entries()) times[j].push(await once(l));
  console.log(`first start (new home) ${first.toFixed(0)} ms`);
  for (const [j, l] of launchers.entries()) {
    const t = times[j].sort((a, b) => a - b);
    console.log(`${l}: ${t.map((x) => x.toFixed(0)).join(' ')} ms; median ${t[t.length >> 1].toFixed(0)} ms`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
