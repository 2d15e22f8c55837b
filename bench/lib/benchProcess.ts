// What the A/B benches that run each configuration in a child process share: their `--name value` flags, and running
// this checkout's bench script as a child over another checkout (`--child <root> …`) for the JSON line it prints last.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../nodes/paths.ts';

/** The value after `name` in `args`, or `dflt` when the flag is absent. */
export function flagValue(args: readonly string[], name: string, dflt: string): string {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
}

/**
 * Runs `node --import tsx <this checkout's script> --child <root> ...childArgs` with `root` as its working directory
 * (so it imports that checkout's code) and returns the JSON of the last line it printed.
 */
export function runChild<T>(script: string, root: string, childArgs: readonly string[]): T {
  const text = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, script), '--child', root, ...childArgs],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 16 << 20,
    },
  );
  return JSON.parse(text.trim().split('\n').pop()!) as T;
}
