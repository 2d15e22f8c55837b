// Command-line options of `npm run bench`: full or quick mode, which nodes, which workloads, and the sizes.
import { NODE_NAMES, type NodeName } from './nodes/types.ts';

/** The workload groups that can be selected with --workload. */
export const WORKLOAD_GROUPS = ['startup', 'reads', 'writes', 'logs', 'engine'] as const;
/** One of WORKLOAD_GROUPS. */
export type WorkloadGroup = (typeof WORKLOAD_GROUPS)[number];

/** Everything a bench run needs to know. */
export interface Options {
  quick: boolean;
  runs: number;
  nodes: NodeName[];
  workloads: WorkloadGroup[];
  /** Seconds per wrk run. */
  readSeconds: number;
  /** Transactions per write workload: value and ERC20 transfers each run once at every size. */
  writeSizes: number[];
  logEvents: number;
  eventsPerTx: number;
  /** Chain height to reach with empty blocks before the selective query "over 100,000 blocks". */
  padBlocks: number;
  /** Bound on the time spent padding (first run only). */
  padDeadlineMs: number;
  /** Repetitions of each eth_getLogs query per run (the median is kept). */
  logQueryReps: number;
  /** Bound on the wait for a receipt: no new receipt for this long and the write run is marked stalled. */
  stallMs: number;
  /** Bound on each write workload (and on emitting the events): past it the figure is what was mined so far. */
  writeMaxMs: number;
  /** Output JSON path; default bench/results/<date>[-quick|-partial][-N].json (-N when the name is taken). */
  out?: string;
}

/** Help text of `npm run bench -- --help`. */
export const USAGE = `usage: npm run bench -- [--quick] [--runs N] [--only kestrel,anvil,anvil-prune,hardhat,ganache]
                        [--workload startup,reads,writes,logs,engine] [--duration SECONDS] [--out FILE]
  --quick     one short run of everything with smaller counts (under 3 minutes)
  --runs N    runs per node (default 3; figures are medians over the runs)
  --only      nodes to start, in turn (default all; anvil-prune is Anvil --prune-history, in the writes only;
              Ganache is not in the writes)
  --workload  workload groups (default all)
  --duration  seconds per wrk read run (default 2, quick 1)
  --out       JSON output path (default bench/results/<date>.json; -2, -3… when taken)`;

const FULL = {
  runs: 3,
  readSeconds: 2,
  writeSizes: [1000, 5000],
  logEvents: 20_000,
  padBlocks: 100_000,
  padDeadlineMs: 60_000,
  logQueryReps: 5,
  stallMs: 15_000,
  writeMaxMs: 45_000,
};
const QUICK = {
  runs: 1,
  readSeconds: 1,
  writeSizes: [150, 500],
  logEvents: 1_000,
  padBlocks: 2_000,
  padDeadlineMs: 15_000,
  logQueryReps: 3,
  stallMs: 6_000,
  writeMaxMs: 15_000,
};

function list<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] {
  if (value === undefined || value === '')
    throw new Error(`${flag} needs a comma-separated list of ${allowed.join(', ')}`);
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const it of items)
    if (!allowed.includes(it as T)) throw new Error(`${flag}: unknown "${it}" (expected ${allowed.join(', ')})`);
  // Keep the canonical order so Kestrel is always first and tables line up between runs.
  return allowed.filter((a) => items.includes(a));
}

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

/** Parses the arguments after `npm run bench --`; throws with a clear message on anything unknown. */
export function parseArgs(argv: string[]): Options {
  const quick = argv.includes('--quick');
  const base = quick ? QUICK : FULL;
  const o: Options = {
    quick,
    ...base,
    writeSizes: [...base.writeSizes],
    nodes: [...NODE_NAMES],
    workloads: [...WORKLOAD_GROUPS],
    eventsPerTx: 20,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--quick':
        break;
      case '--runs':
        o.runs = positiveInt(flag, value());
        break;
      case '--only':
        o.nodes = list(flag, value(), NODE_NAMES);
        break;
      case '--workload':
      case '--workloads':
        o.workloads = list(flag, value(), WORKLOAD_GROUPS);
        break;
      case '--duration':
        o.readSeconds = positiveInt(flag, value());
        break;
      case '--out': {
        const v = value();
        if (!v) throw new Error('--out needs a file path');
        o.out = v;
        break;
      }
      default:
        throw new Error(`unknown argument "${a}"\n${USAGE}`);
    }
  }
  return o;
}

/** True when the run covers every node and workload in full mode (the run whose JSON is bench/results/<date>.json). */
export function isCompleteRun(o: Options): boolean {
  return !o.quick && o.nodes.length === NODE_NAMES.length && o.workloads.length === WORKLOAD_GROUPS.length;
}
