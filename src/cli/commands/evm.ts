// `kestreld evm statetest <file|dir> [--fork Cancun|Prague] [--run REGEX]`: runs Ethereum state tests on Kestrel's
// engine and prints one JSON object per case in geth's `evm statetest` shape, then `N passed, M failed`.
// With no path, reads paths from stdin, one a line, as geth's does.
import type { Command } from 'commander';
import fs from 'node:fs';
import { createInterface } from 'node:readline';
import type { StateTestEngine } from '../../evm/statetest/engine.ts';
import { RUNNABLE_FORKS, runStateTests } from '../../evm/statetest/runner.ts';

/** Options of `evm statetest`. */
export interface StatetestOptions {
  fork?: string;
  run?: string;
}

/** Where `evm statetest` writes: results to `out`, notes to `err`. */
export interface StatetestIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

async function stdinPaths(): Promise<string[]> {
  const paths: string[] = [];
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const p = line.trim();
    if (p !== '') paths.push(p);
  }
  return paths;
}

/** Runs the command on `engine`; resolves to the number of failed cases. */
export async function runStatetestCommand(
  paths: string[],
  opts: StatetestOptions,
  engine: StateTestEngine,
  io: StatetestIo,
): Promise<number> {
  if (opts.fork !== undefined && !RUNNABLE_FORKS.includes(opts.fork as never)) {
    throw new Error(`unsupported fork '${opts.fork}' (expected one of ${RUNNABLE_FORKS.join(', ')})`);
  }
  for (const p of paths) if (!fs.existsSync(p)) throw new Error(`no such file or directory: ${p}`);
  let run: RegExp | undefined;
  try {
    run = opts.run === undefined ? undefined : new RegExp(opts.run);
  } catch {
    throw new Error(`invalid --run regular expression: ${opts.run}`);
  }
  let passed = 0;
  let failed = 0;
  const skipped = new Map<string, number>();
  const onSkip = (_name: string, fork: string) => skipped.set(fork, (skipped.get(fork) ?? 0) + 1);
  for await (const r of runStateTests(paths, { engine, fork: opts.fork, run, onSkip })) {
    if (r.pass) passed++;
    else failed++;
    io.out(JSON.stringify(r));
  }
  if (skipped.size > 0) {
    const list = [...skipped].map(([fork, n]) => `${n} ${fork}`).join(', ');
    io.err(`skipped cases of forks the engine does not run: ${list}`);
  }
  io.out(`${passed} passed, ${failed} failed`);
  return failed;
}

/** Registers `evm statetest` over the given engine. */
export function registerEvmCommands(program: Command, engine: () => Promise<StateTestEngine>): void {
  const evm = program.command('evm').description("Kestrel's EVM tools");
  evm
    .command('statetest [path]')
    .description(
      'run Ethereum state tests (a JSON file, a directory, or a .json.br/.json.gz bundle); paths from stdin when none is given',
    )
    .option('--fork <name>', `only cases of this fork (${RUNNABLE_FORKS.join('|')})`)
    .option('--run <regex>', 'only tests whose name matches')
    .action(async (path: string | undefined, opts: StatetestOptions) => {
      const paths = path === undefined ? await stdinPaths() : [path];
      const io: StatetestIo = {
        out: (l) => process.stdout.write(l + '\n'),
        err: (l) => process.stderr.write(l + '\n'),
      };
      const failed = await runStatetestCommand(paths, opts, await engine(), io);
      if (failed > 0) process.exitCode = 1;
    });
}
