// The idle keep-alive matrix: for each node and each pause, one raw socket sends eth_blockNumber, stays idle for
// the pause, then sends it again on the same socket without watching for the server's close first, as Python's
// http.client, raw sockets and some pools do. It prints when the server closed the socket (if it did) and whether
// the second request was answered. Every (node, pause) runs at once, so a run lasts the longest pause plus starts.
// Usage: IDLES=12,15,60 node --import tsx bench/keepAlive.ts [kestrel-uws] [kestrel-node] [anvil] [hardhat]
// (default: all four; kestrel-uws falls back to node:http where the uWS binary does not load, and says so).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RawHttpClient } from '../test/helpers/rawHttp.ts';
import { startAnvil } from './nodes/anvil.ts';
import { startHardhat } from './nodes/hardhat.ts';
import { kestrelStart } from './nodes/kestrel.ts';
import { REPO_ROOT } from './nodes/paths.ts';
import { spawnNode } from './nodes/process.ts';
import type { RunningNode } from './nodes/types.ts';

const TARGETS = ['kestrel-uws', 'kestrel-node', 'anvil', 'hardhat'] as const;
type Target = (typeof TARGETS)[number];

const idles = (process.env.IDLES ?? '12,15,60').split(',').map(Number);
if (idles.some((s) => !(s > 0 && s <= 600))) throw new Error('IDLES: seconds between 0 and 600, comma-separated');
const asked = process.argv.slice(2);
for (const a of asked) if (!TARGETS.includes(a as Target)) throw new Error(`unknown target ${a}: ${TARGETS.join(' ')}`);
const targets: Target[] = asked.length > 0 ? (asked as Target[]) : [...TARGETS];

/** Starts Kestrel on one transport; the log line that names the transport is kept for the report. */
async function startKestrel(transport: 'uws' | 'node'): Promise<{ node: RunningNode; chosen: string }> {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-keepalive-'));
  // auto rather than uws: where the binary does not load the row says so instead of failing the run.
  const setting = transport === 'uws' ? 'auto' : 'node';
  const { url, args } = await kestrelStart('bin/kestreld.js', join(base, 'home'), ['--json-rpc.transport', setting]);
  const s = await spawnNode('kestrel', process.execPath, args, url, { cwd: REPO_ROOT });
  const chosen = /JSON-RPC transport: (\w+)/.exec(s.logTail())?.[1] ?? '?';
  return {
    chosen,
    node: {
      name: 'kestrel',
      url,
      pid: s.pid,
      startupMs: s.startupMs,
      logTail: () => s.logTail(),
      async stop() {
        await s.stop();
        rmSync(base, { recursive: true, force: true });
      },
    },
  };
}

async function start(t: Target): Promise<{ node: RunningNode; label: string }> {
  switch (t) {
    case 'kestrel-uws':
    case 'kestrel-node': {
      const { node, chosen } = await startKestrel(t === 'kestrel-uws' ? 'uws' : 'node');
      return { node, label: `Kestrel (${chosen})` };
    }
    case 'anvil':
      return { node: await startAnvil(), label: 'Anvil' };
    case 'hardhat':
      return { node: await startHardhat(), label: 'Hardhat' };
  }
}

/** What a client idle for `idleS` on `url` got, and the Keep-Alive header of the first reply. */
async function probe(url: string, idleS: number): Promise<{ cell: string; hint: string }> {
  const client = await RawHttpClient.connect(Number(new URL(url).port));
  try {
    const first = await client.request();
    const hint = first.keepAlive ?? '(none)';
    await new Promise((r) => setTimeout(r, idleS * 1000));
    const closedAt = client.closedAfterS;
    try {
      const second = await client.request();
      return { cell: second.status === 200 ? 'answered' : `HTTP ${second.status}`, hint };
    } catch (e) {
      const when = closedAt === undefined ? '' : `closed by the server after ${closedAt.toFixed(1)} s: `;
      return { cell: `failed (${when}${(e as Error).message})`, hint };
    }
  } finally {
    client.destroy();
  }
}

const started: Array<{ node: RunningNode; label: string }> = [];
try {
  for (const t of targets) started.push(await start(t));
  process.stderr.write(`started ${started.map((s) => s.label).join(', ')}; idle ${idles.join(', ')} s\n`);
  const cells = await Promise.all(started.map((s) => Promise.all(idles.map((i) => probe(s.node.url, i)))));
  console.log(`| node | Keep-Alive | ${idles.map((i) => `idle ${i} s`).join(' | ')} |`);
  console.log(`|---|---|${idles.map(() => '---').join('|')}|`);
  started.forEach((s, n) =>
    console.log(`| ${s.label} | ${cells[n]![0]!.hint} | ${cells[n]!.map((c) => c.cell).join(' | ')} |`),
  );
} finally {
  for (const s of started) await s.node.stop();
}
