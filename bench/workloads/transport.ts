// The transport row: Kestrel's eth_blockNumber against a bare JSON-RPC handler (bench/bare/server.ts) on the same
// back end Kestrel chose (uWebSockets.js or node:http), measured back to back in three pairs (the median pair's
// ratio is the row), so Kestrel / bare is the share of the transport's ceiling that Kestrel keeps: everything
// Kestrel does above the transport costs the rest. Beside them, a
// constant reply from C on one epoll thread (bench/bare/ceiling.c): a reference point, the least work an HTTP server
// can do per request. Not a bound: at 2 connections a server with two threads (Anvil) has answered faster.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWrk } from '../lib/wrk.ts';
import { REPO_ROOT } from '../nodes/paths.ts';
import { freePort, spawnNode } from '../nodes/process.ts';
import type { RowSpec, Sample } from '../report.ts';
import type { Chain } from './chain.ts';
import { READ_CONNECTIONS } from './reads.ts';

/** Kestrel/bare pairs per connection count; the row is the median pair's ratio. */
const SHARE_PAIRS = 3;

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });

/** The rows: the C ceiling, the bare handler's rate, and Kestrel's share of it (target ≥ 90%). */
export function transportSpecs(): RowSpec[] {
  return READ_CONNECTIONS.flatMap((c) => [
    {
      id: `transport.ceiling.c${c}`,
      label: `reference: constant reply from C on one epoll thread, ${c} conn`,
      unit: 'req/s',
      better: 'higher' as const,
    },
    {
      id: `transport.bare.c${c}`,
      label: `bare handler on Kestrel's transport, eth_blockNumber, ${c} conn`,
      unit: 'req/s',
      better: 'higher' as const,
    },
    {
      id: `transport.share.c${c}`,
      label: `Kestrel eth_blockNumber / bare handler, ${c} conn`,
      unit: '%',
      better: 'higher' as const,
      target: { kind: 'min' as const, limit: 90 },
    },
  ]);
}

/** The back end a Kestrel process logged at start ("JSON-RPC transport: uws: …"). */
export function transportOf(log: string): 'uws' | 'node' | undefined {
  const m = /JSON-RPC transport: (uws|node)\b/.exec(log);
  return m ? (m[1] as 'uws' | 'node') : undefined;
}

/** Measures Kestrel and the bare handler back to back at each connection count. */
export async function runTransport(
  chain: Chain,
  seconds: number,
  log: (s: string) => void,
): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  const kind = transportOf(chain.node.logTail());
  if (kind === undefined) {
    for (const spec of transportSpecs())
      out.set(spec.id, { value: null, status: 'error', note: 'Kestrel did not log its transport' });
    return out;
  }
  for (const [id, s] of await runCeiling(seconds, log)) out.set(id, s);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const bare = await spawnNode(
    'bare',
    process.execPath,
    ['--import', 'tsx', 'bench/bare/server.ts', kind, String(port)],
    url,
    { cwd: REPO_ROOT },
  );
  try {
    for (const c of READ_CONNECTIONS) {
      // Three back-to-back pairs, the median pair's ratio: one pair of 2-s runs moved 72-93% between runs at 32
      // connections while both processes' profiles had the same shares (the machine's spread, not Kestrel's).
      const pairs: Array<{ k: number; b: number }> = [];
      for (let i = 0; i < SHARE_PAIRS; i++) {
        const k = await runWrk(chain.node.url, BODY, c, seconds);
        const b = await runWrk(url, BODY, c, seconds);
        pairs.push({ k: k.requestsPerSec, b: b.requestsPerSec });
      }
      const share = (p: { k: number; b: number }) => (100 * p.k) / p.b;
      const mid = [...pairs].sort((x, y) => share(x) - share(y))[Math.floor(SHARE_PAIRS / 2)]!;
      const all = pairs.map((p) => `${Math.round(share(p))}%`).join(' / ');
      out.set(`transport.bare.c${c}`, { value: mid.b, status: 'ok', note: `${kind} back end` });
      out.set(`transport.share.c${c}`, { value: share(mid), status: 'ok', note: `pairs ${all}` });
      log(
        `  transport ${kind} c${c}: Kestrel ${Math.round(mid.k)} / bare ${Math.round(mid.b)} req/s = ${share(mid).toFixed(0)}% (pairs ${all})`,
      );
    }
  } finally {
    await bare.stop();
  }
  return out;
}

/** Builds bench/bare/ceiling.c with cc and measures it at each connection count; an error row when cc fails. */
async function runCeiling(seconds: number, log: (s: string) => void): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-bench-ceiling-'));
  try {
    const bin = join(dir, 'ceiling');
    try {
      execFileSync('cc', ['-O2', '-o', bin, join(REPO_ROOT, 'bench', 'bare', 'ceiling.c')], { stdio: 'pipe' });
    } catch (e) {
      const note = `cc could not build bench/bare/ceiling.c: ${(e as Error).message.split('\n')[0]!.slice(0, 160)}`;
      for (const c of READ_CONNECTIONS) out.set(`transport.ceiling.c${c}`, { value: null, status: 'error', note });
      return out;
    }
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = await spawnNode('ceiling', bin, [String(port)], url);
    try {
      for (const c of READ_CONNECTIONS) {
        const r = await runWrk(url, BODY, c, seconds);
        out.set(`transport.ceiling.c${c}`, { value: r.requestsPerSec, status: 'ok' });
        log(`  reference (C, constant reply) c${c}: ${Math.round(r.requestsPerSec)} req/s`);
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
