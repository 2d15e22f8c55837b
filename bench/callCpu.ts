// A read workload (`npm run bench`'s read.<KIND>, default callBalanceOf: same body, same wrk) against
// one or more launchers, reporting beside req/s the node process's CPU time per answered request: the figure a
// busy machine distorts least. Every node is started and given the token first; then the wrk runs alternate
// between them, round by round. `anvil` as a launcher runs Anvil beside them. Usage:
//   KIND=callBalanceOf SECONDS=5 ROUNDS=3 CONNS=2,32 node --import tsx bench/callCpu.ts [--prof] <launcher|anvil> [...]
// A launcher may carry extra kestreld flags after a '+', e.g. `bin/kestreld.js+--json-rpc.transport=node`, and
// node flags after an '@', comma-separated, e.g. `bin/kestreld.js@--max-semi-space-size=32`, and last, after a '%',
// the Node executable to run it with (default: this one), e.g. `bin/kestreld.js%/opt/node24/bin/node`, so that
// Node lines are compared in one run.
// --prof starts each Kestrel under `node --cpu-prof` (profiles in $PROF_DIR, default <tmpdir>/kestrel-callcpu-prof;
// sampling interval $PROF_INTERVAL_US, default Node's 1000).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileContracts, tokenConstructorArgs } from './lib/contracts.ts';
import { RpcClient } from './lib/rpc.ts';
import { devAccounts } from './lib/tx.ts';
import { ensureWrk, runWrk } from './lib/wrk.ts';
import { startAnvil } from './nodes/anvil.ts';
import { kestrelStart } from './nodes/kestrel.ts';
import { REPO_ROOT } from './nodes/paths.ts';
import { spawnNode } from './nodes/process.ts';
import type { RunningNode } from './nodes/types.ts';
import { deploy, type Chain } from './workloads/chain.ts';
import { readBodies } from './workloads/reads.ts';

const specs = process.argv.slice(2).filter((a) => !a.startsWith('-'));
if (specs.length === 0) throw new Error('usage: bench/callCpu.ts [--prof] <launcher|anvil> [...]');
const prof = process.argv.includes('--prof');
const profDir = process.env.PROF_DIR ?? join(tmpdir(), 'kestrel-callcpu-prof');
const seconds = Number(process.env.SECONDS ?? 5);
const rounds = Number(process.env.ROUNDS ?? 3);
const kind = process.env.KIND ?? 'callBalanceOf';
const conns = (process.env.CONNS ?? '2,32').split(',').map(Number);
if (!(seconds > 0) || !Number.isInteger(rounds) || rounds < 1 || conns.some((c) => !Number.isInteger(c) || c < 1))
  throw new Error('SECONDS, ROUNDS and CONNS must be positive');

/** User and system CPU time of a process in ms (clock ticks at Linux's usual 100 Hz). */
function cpuMs(pid: number): { user: number; sys: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 };
}

interface Target {
  spec: string;
  node: RunningNode;
  body: string;
}

async function start(spec: string): Promise<RunningNode> {
  if (spec === 'anvil') return startAnvil();
  const [kestrel, executable] = spec.split('%') as [string, string | undefined];
  const [head, node] = kestrel.split('@') as [string, string | undefined];
  const nodeFlags = node === undefined ? [] : node.split(',');
  const [launcher, ...flags] = head.split('+') as [string, ...string[]];
  const base = mkdtempSync(join(tmpdir(), 'kestrel-callcpu-'));
  const { url, args } = await kestrelStart(launcher, join(base, 'home'), flags);
  const interval = process.env.PROF_INTERVAL_US;
  const nodeArgs = prof
    ? ['--cpu-prof', '--cpu-prof-dir', profDir, ...(interval ? ['--cpu-prof-interval', interval] : [])]
    : [];
  const s = await spawnNode('kestrel', executable ?? process.execPath, [...nodeFlags, ...nodeArgs, ...args], url, {
    cwd: REPO_ROOT,
  });
  return {
    name: 'kestrel',
    url,
    pid: s.pid,
    startupMs: s.startupMs,
    logTail: () => s.logTail(),
    async stop() {
      await s.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

ensureWrk();
const code = compileContracts();
const accounts = devAccounts(10);
const targets: Target[] = [];
try {
  for (const spec of specs) {
    const node = await start(spec);
    targets.push({ spec, node, body: '' });
    const client = new RpcClient(node.url, 60_000, 8);
    try {
      const chain: Chain = { node, client, chainId: BigInt(await client.call<string>('eth_chainId')) };
      const holders = accounts.map((a) => a.address);
      const token = await deploy(chain, accounts[0]!, code.token + tokenConstructorArgs(holders, 10n ** 30n));
      const body = readBodies(token, accounts).find((b) => b.key === kind)?.body;
      if (body === undefined) throw new Error(`no read workload ${kind}`);
      targets[targets.length - 1]!.body = body;
      // Warm up (JIT, caches) before the measured runs.
      await runWrk(node.url, targets[targets.length - 1]!.body, 2, 1);
    } finally {
      client.close();
    }
  }
  for (let r = 0; r < rounds; r++) {
    for (const c of conns) {
      for (const t of targets) {
        const cpu0 = cpuMs(t.node.pid);
        const w = await runWrk(t.node.url, t.body, c, seconds);
        const cpu1 = cpuMs(t.node.pid);
        const perReq = (ms: number) => ((ms * 1000) / Math.max(w.requests, 1)).toFixed(1);
        const user = cpu1.user - cpu0.user;
        const sys = cpu1.sys - cpu0.sys;
        const failed = w.non2xx + w.socketErrors;
        console.log(
          `round ${r + 1} c${c} ${t.spec}: ${w.requestsPerSec.toFixed(0)} req/s, CPU ${perReq(user + sys)} us/req (user ${perReq(user)}, sys ${perReq(sys)})` +
            `${failed > 0 ? `, ${failed} failed` : ''}, load ${loadavg()[0]!.toFixed(2)}`,
        );
      }
    }
  }
} finally {
  for (const t of targets) await t.node.stop();
}
