// The in-process engine rows (issue 15): bench/engine.ts run as a child process, Kestrel's EVM beside @ethereumjs/evm
// on the same ERC20 balanceOf, and 500-tx blocks through the engine alone and through the app (state root and store
// write included). CPU time, so a shared machine distorts them least. Kestrel only: the peers have no in-process
// engine here.
import { execFile } from 'node:child_process';
import { REPO_ROOT } from '../nodes/paths.ts';
import type { RowSpec, Sample } from '../report.ts';

/** What bench/engine.ts --json prints. */
interface EngineFigures {
  balanceOfUs: number;
  ethereumjsBalanceOfUs: number;
  blockTransfers: number;
  blockErc20: number;
  appTransfers: number;
  appErc20: number;
  appTransfersWall: number;
  appErc20Wall: number;
  /** finalizeBlock alone (before the store write); absent from runs before it was reported. */
  appTransfersFinalize?: number;
  appErc20Finalize?: number;
}

const ROWS = {
  balanceOf: 'engine.balanceOf',
  appTransfers: 'engine.appBlock.transfers',
  appErc20: 'engine.appBlock.erc20',
} as const;

/** The rows and the targets: balanceOf ≤ 20 µs; app blocks ≥ 10,000 transfers/s and ≥ 4,000 ERC20/s. */
export function engineSpecs(): RowSpec[] {
  return [
    {
      id: ROWS.balanceOf,
      label: 'engine in process: ERC20 balanceOf, warm caches, fresh call context (CPU)',
      unit: 'µs/call',
      better: 'lower',
      target: { kind: 'max', limit: 20 },
    },
    {
      id: ROWS.appTransfers,
      label: 'engine in process: 500-tx blocks of value transfers, state root and store write included (CPU)',
      unit: 'tx/s',
      better: 'higher',
      target: { kind: 'min', limit: 10_000 },
    },
    {
      id: ROWS.appErc20,
      label: 'engine in process: 500-tx blocks of ERC20 transfers, state root and store write included (CPU)',
      unit: 'tx/s',
      better: 'higher',
      target: { kind: 'min', limit: 4_000 },
    },
  ];
}

/** Runs bench/engine.ts (bounded) and turns its JSON line into the rows' samples; error samples on failure. */
export async function runEngine(quick: boolean, log: (s: string) => void): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  const args = ['--import', 'tsx', 'bench/engine.ts', '--json', ...(quick ? ['--quick'] : [])];
  let figures: EngineFigures;
  try {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, args, { cwd: REPO_ROOT, timeout: 600_000, maxBuffer: 1 << 20 }, (e, so, se) =>
        e ? reject(new Error(`${e.message.split('\n')[0]!} ${String(se).slice(-300)}`)) : resolve(so),
      ),
    );
    const line = stdout.split('\n').find((l) => l.startsWith('{'));
    if (line === undefined) throw new Error(`bench/engine.ts printed no JSON line: ${stdout.slice(0, 200)}`);
    figures = JSON.parse(line) as EngineFigures;
  } catch (e) {
    const note = (e as Error).message.slice(0, 200);
    for (const id of Object.values(ROWS)) out.set(id, { value: null, status: 'error', note });
    return out;
  }
  const f = figures;
  const ratio = f.ethereumjsBalanceOfUs / f.balanceOfUs;
  out.set(ROWS.balanceOf, {
    value: f.balanceOfUs,
    status: 'ok',
    note: `@ethereumjs/evm on the same call: ${f.ethereumjsBalanceOfUs.toFixed(0)} µs (${ratio.toFixed(0)}x slower)`,
  });
  const engineOnly = (n: number) => `${Math.round(n).toLocaleString('en-US')} tx/s in the engine without the root`;
  const fin = (n: number | undefined) =>
    n === undefined ? '' : `; finalizeBlock alone ${Math.round(n).toLocaleString('en-US')} tx/s`;
  out.set(ROWS.appTransfers, {
    value: f.appTransfers,
    status: 'ok',
    note: `${engineOnly(f.blockTransfers)}; wall ${Math.round(f.appTransfersWall).toLocaleString('en-US')} tx/s${fin(f.appTransfersFinalize)}`,
  });
  out.set(ROWS.appErc20, {
    value: f.appErc20,
    status: 'ok',
    note: `${engineOnly(f.blockErc20)}; wall ${Math.round(f.appErc20Wall).toLocaleString('en-US')} tx/s${fin(f.appErc20Finalize)}`,
  });
  log(
    `  engine: balanceOf ${f.balanceOfUs.toFixed(2)} µs (ethereumjs ${f.ethereumjsBalanceOfUs.toFixed(0)}), app blocks ${Math.round(f.appTransfers)} / ${Math.round(f.appErc20)} tx/s`,
  );
  return out;
}
