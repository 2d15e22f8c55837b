// `npm run bench`: starts Kestrel, Anvil, Hardhat and Ganache one at a time on loopback with the same dev accounts
// and instant mining, runs the same workloads against each, and prints one table (Markdown) of every node's figure
// and Kestrel's ratios, written also as JSON to bench/results/. See README "Performance". The write group is issue
// 27's target 1 and runs on Kestrel and its peers there (WRITE_NODES): Anvil with its defaults, Anvil
// --prune-history (anvil-prune, a node of the write group only) and Hardhat; not on Ganache.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { compileContracts, EVM_VERSION, tokenConstructorArgs, type BenchContracts } from './lib/contracts.ts';
import { devAccounts, GAS_PRICE, type Account } from './lib/tx.ts';
import { ensureWrk } from './lib/wrk.ts';
import { STARTERS } from './nodes/index.ts';
import { REPO_ROOT } from './nodes/paths.ts';
import { rssMiB } from './nodes/process.ts';
import type { NodeName } from './nodes/types.ts';
import { isCompleteRun, parseArgs, USAGE, type Options } from './options.ts';
import { aggregate, formatTable, rowsToJson, type Row, type RowSpec, type Sample } from './report.ts';
import { deploy, openChain, type Chain } from './workloads/chain.ts';
import { engineSpecs, runEngine } from './workloads/engine.ts';
import { logSpecs, runLogs } from './workloads/logs.ts';
import { readSpecs, runReads } from './workloads/reads.ts';
import { runTransport, transportSpecs } from './workloads/transport.ts';
import { sendAll } from './workloads/send.ts';
import {
  benchWrites,
  fundSenders,
  RSS_ROW,
  WRITE_NODES,
  writeSample,
  writeSpecs,
  WRITE_SENDERS,
  writeTxs,
  type WriteWorkload,
} from './workloads/writes.ts';

// Issue 16's startup targets. Kestrel's rows are two starts of one home (the second is the usual start); a peer's
// only start (a fresh in-memory chain) fills both of its rows.
const STARTUP_ROW: RowSpec = {
  id: 'startup',
  label: 'startup to first eth_blockNumber (existing home)',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'max', limit: 300 },
};
const STARTUP_FRESH_ROW: RowSpec = {
  id: 'startup-fresh',
  label: 'startup to first eth_blockNumber (fresh --dev home)',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'max', limit: 600 },
};
const TOKEN_SUPPLY = 10n ** 30n;

const log = (s: string) => process.stderr.write(`${s}\n`);

/** Samples collected so far: row id → node → one sample per run. */
type Collected = Map<string, Map<NodeName, Sample[]>>;

function record(c: Collected, node: NodeName, samples: Map<string, Sample>): void {
  for (const [id, s] of samples) {
    const byNode = c.get(id) ?? new Map<NodeName, Sample[]>();
    byNode.set(node, [...(byNode.get(node) ?? []), s]);
    c.set(id, byNode);
  }
}

/** Starts a node of `name` and opens a client on it; both are closed by closeChain. */
async function startChain(name: NodeName): Promise<Chain> {
  const node = await STARTERS[name]();
  try {
    return await openChain(node);
  } catch (e) {
    await node.stop();
    throw e;
  }
}

async function closeChain(chain: Chain): Promise<void> {
  chain.client.close();
  await chain.node.stop();
}

async function deployToken(chain: Chain, code: BenchContracts, senders: Account[]): Promise<string> {
  return deploy(
    chain,
    senders[0]!,
    code.token +
      tokenConstructorArgs(
        senders.map((a) => a.address),
        TOKEN_SUPPLY,
      ),
  );
}

/** Startup and reads on one node process. */
async function readSession(
  name: NodeName,
  o: Options,
  code: BenchContracts,
  senders: Account[],
): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  const chain = await startChain(name);
  try {
    const fresh = chain.node.freshStartupMs ?? chain.node.startupMs;
    out.set(STARTUP_ROW.id, { value: chain.node.startupMs, status: 'ok' });
    out.set(STARTUP_FRESH_ROW.id, { value: fresh, status: 'ok' });
    log(`  startup ${chain.node.startupMs.toFixed(0)} ms (fresh home ${fresh.toFixed(0)} ms)`);
    if (o.workloads.includes('reads')) {
      const token = await deployToken(chain, code, senders);
      for (const [id, s] of await runReads(chain, token, senders, o.readSeconds, log)) out.set(id, s);
      if (name === 'kestrel') for (const [id, s] of await runTransport(chain, o.readSeconds, log)) out.set(id, s);
    }
  } finally {
    await closeChain(chain);
  }
  return out;
}

/** Runs one write workload on `chain` (with `token` deployed) and logs its figure. */
async function runWrite(
  chain: Chain,
  w: WriteWorkload,
  o: Options,
  senders: Account[],
  token: string,
): Promise<Sample> {
  const txs = await writeTxs(chain, w, senders, w.size, token);
  const outcome = await sendAll(chain.node.url, txs, {
    mode: w.mode,
    inflight: WRITE_SENDERS,
    stallMs: o.stallMs,
    maxMs: o.writeMaxMs,
    requestTimeoutMs: 10_000,
  });
  const sample = writeSample(outcome);
  log(`  ${w.id}: ${sample.value?.toFixed(0) ?? '–'} tx/s${sample.note ? ` (${sample.status}: ${sample.note})` : ''}`);
  return sample;
}

/**
 * Each write workload on a fresh node process, so no node is measured on a chain the workloads before it grew
 * (Anvil slows as its chain grows) and a stalled workload cannot distort the next. Then, for Kestrel, the RSS row:
 * the workloads in sequence on one process, and its RSS after them (peers: not measured, their sequential runs take
 * minutes).
 */
async function writeSessions(
  name: NodeName,
  o: Options,
  code: BenchContracts,
  senders: Account[],
): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  const workloads = benchWrites(o.writeSizes);
  for (const w of workloads) {
    const chain = await startChain(name);
    try {
      await fundSenders(chain, senders[0]!, senders);
      out.set(w.id, await runWrite(chain, w, o, senders, await deployToken(chain, code, senders)));
    } finally {
      await closeChain(chain);
    }
  }
  if (name !== 'kestrel') return out;
  log(`  RSS: the ${workloads.length} write workloads again, in sequence on one process`);
  const chain = await startChain(name);
  try {
    await fundSenders(chain, senders[0]!, senders);
    const token = await deployToken(chain, code, senders);
    const failed: string[] = [];
    for (const w of workloads) {
      const s = await runWrite(chain, w, o, senders, token);
      if (s.status !== 'ok') failed.push(`${w.id} (${s.status})`);
    }
    const rss = rssMiB(chain.node.pid);
    log(`  RSS ${rss.toFixed(0)} MiB`);
    // A failed workload leaves txs pending, so the RSS is not that of the workloads completed: say so.
    out.set(
      RSS_ROW,
      failed.length > 0
        ? { value: rss, status: 'error', note: `after failed write workloads: ${failed.join(', ')}` }
        : { value: rss, status: 'ok' },
    );
  } finally {
    await closeChain(chain);
  }
  return out;
}

/** The log workloads on a fresh node process. */
async function logSession(
  name: NodeName,
  o: Options,
  code: BenchContracts,
  senders: Account[],
  run: number,
): Promise<Map<string, Sample>> {
  const chain = await startChain(name);
  try {
    const p = {
      events: o.logEvents,
      eventsPerTx: o.eventsPerTx,
      reps: o.logQueryReps,
      stallMs: o.stallMs,
      maxMs: o.writeMaxMs,
      padBlocks: run === 0 ? o.padBlocks : 0,
      padDeadlineMs: o.padDeadlineMs,
    };
    return await runLogs(chain, code.logSource, senders, p, log);
  } finally {
    await closeChain(chain);
  }
}

function machine(): Record<string, unknown> {
  const cpu = cpus();
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    /* not a git checkout */
  }
  return {
    cores: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    totalMemMiB: Math.round(totalmem() / 2 ** 20),
    node: process.version,
    kestrelCommit: commit,
    loadAverageAtStart: loadavg(),
  };
}

function peerVersions(): Record<string, string> {
  const pkg = (p: string) =>
    (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', p, 'package.json'), 'utf8')) as { version: string })
      .version;
  return { anvil: pkg('@foundry-rs/anvil-linux-amd64'), hardhat: pkg('hardhat'), ganache: pkg('ganache') };
}

function specsFor(o: Options): RowSpec[] {
  return [
    ...(o.workloads.some((w) => w === 'startup' || w === 'reads' || w === 'writes')
      ? [STARTUP_ROW, STARTUP_FRESH_ROW]
      : []),
    ...(o.workloads.includes('reads') ? [...readSpecs(), ...transportSpecs()] : []),
    ...(o.workloads.includes('writes') ? writeSpecs({ sizes: o.writeSizes }) : []),
    ...(o.workloads.includes('logs') ? logSpecs(o.logEvents, o.padBlocks) : []),
    ...(o.workloads.includes('engine') ? engineSpecs() : []),
  ];
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const o = parseArgs(process.argv.slice(2));
  const started = new Date();
  const meta = { machine: machine(), versions: peerVersions() };
  log(
    `bench: ${o.quick ? 'quick' : 'full'} mode, ${o.runs} run(s), nodes ${o.nodes.join(',')}, workloads ${o.workloads.join(',')}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (o.workloads.includes('reads')) ensureWrk();
  const code = compileContracts();
  const senders = devAccounts(10);
  const writers = devAccounts(WRITE_SENDERS);
  const collected: Collected = new Map();
  for (let run = 0; run < o.runs; run++) {
    for (const name of o.nodes) {
      log(`run ${run + 1}/${o.runs}: ${name} (load average ${loadavg()[0]!.toFixed(2)})`);
      const sessions: Array<[string, () => Promise<Map<string, Sample>>]> = [];
      // anvil-prune is a node of the write group only (the other groups measure Anvil as it starts).
      const writesOnly = name === 'anvil-prune';
      if (!writesOnly && o.workloads.some((w) => w === 'startup' || w === 'reads' || w === 'writes'))
        sessions.push(['startup/reads', () => readSession(name, o, code, senders)]);
      if (o.workloads.includes('writes') && WRITE_NODES.includes(name))
        sessions.push(['writes', () => writeSessions(name, o, code, writers)]);
      if (!writesOnly && o.workloads.includes('logs'))
        sessions.push(['logs', () => logSession(name, o, code, senders, run)]);
      if (o.workloads.includes('engine') && name === 'kestrel')
        sessions.push(['engine', () => runEngine(o.quick, log)]);
      for (const [what, fn] of sessions) {
        try {
          record(collected, name, await fn());
        } catch (e) {
          log(`  ${name} ${what} failed: ${(e as Error).message}`);
          const failed = new Map<string, Sample>();
          for (const spec of specsFor(o)) {
            if (sessionOf(spec.id) === what)
              failed.set(spec.id, {
                value: null,
                status: 'error',
                note: (e as Error).message.split('\n')[0]!.slice(0, 200),
              });
          }
          record(collected, name, failed);
        }
      }
      // Written after every node so an interrupted run still leaves its figures behind.
      writeResults(o, started, meta, collected, senders.length, `${run + 1}/${o.runs} runs, through ${name}`);
    }
  }
  const { table, out } = writeResults(o, started, meta, collected, senders.length, 'complete');
  const header = `Kestrel bench ${started.toISOString()} — ${commandLine()}\nmachine: ${String(meta.machine.cores)} cores, Node ${process.version}, load average at start ${(meta.machine.loadAverageAtStart as number[]).map((l) => l.toFixed(2)).join(' ')}; ${o.quick ? 'quick mode, ' : ''}${o.runs === 1 ? '1 run' : `medians of ${o.runs} runs`}`;
  process.stdout.write(`\n${header}\n\n${table}\n`);
  log(`\nwrote ${out}`);
}

/** The session that fills a row (the name main() gives it). */
function sessionOf(rowId: string): string {
  if (rowId.startsWith('write.') || rowId === RSS_ROW) return 'writes';
  return rowId.startsWith('logs.') ? 'logs' : rowId.startsWith('engine.') ? 'engine' : 'startup/reads';
}

/** `<dir>/<stem>.json`, or `<stem>-2.json`, `-3`… when that name already holds a run (results are committed). */
function freshPath(dir: string, stem: string): string {
  let path = join(dir, `${stem}.json`);
  for (let n = 2; existsSync(path); n++) path = join(dir, `${stem}-${n}.json`);
  return path;
}

function commandLine(): string {
  return `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
}

/** Folds the samples collected so far into rows and writes the JSON; returns the table and the path. */
function writeResults(
  o: Options,
  started: Date,
  meta: { machine: Record<string, unknown>; versions: Record<string, string> },
  collected: Collected,
  senders: number,
  progress: string,
): { table: string; out: string } {
  const rows: Row[] = specsFor(o).map((spec) => {
    const figures: Row['figures'] = {};
    for (const name of o.nodes) {
      const samples = collected.get(spec.id)?.get(name);
      if (samples) figures[name] = aggregate(samples);
    }
    return { ...spec, figures };
  });
  const table = formatTable(rows, o.nodes);
  const date = started.toISOString().slice(0, 10);
  const out =
    o.out ??
    freshPath(join(REPO_ROOT, 'bench', 'results'), `${date}${isCompleteRun(o) ? '' : o.quick ? '-quick' : '-partial'}`);
  const json = {
    date,
    startedAt: started.toISOString(),
    writtenAt: new Date().toISOString(),
    progress,
    command: commandLine(),
    ...meta,
    loadAverageNow: loadavg(),
    settings: {
      ...o,
      evmVersion: EVM_VERSION,
      gasPriceWei: GAS_PRICE.toString(),
      senders,
      writeSenders: WRITE_SENDERS,
    },
    rows: rowsToJson(rows, o.nodes),
    table,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
  return { table, out };
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
