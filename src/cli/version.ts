// What `kestreld version` and `kestreld --version` print: the release, the source commit and the fork a new home
// runs, as geth, evmosd and anvil each answer (an operator or a bug report needs all three to name a build).
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_FORK, VERSION } from '../main.ts';

/** The facts the version command prints. */
export interface VersionInfo {
  version: string;
  /** 40 hex digits, or 'unknown' outside a git checkout of Kestrel. */
  commit: string;
  /** The checkout has uncommitted changes to tracked files. */
  modified: boolean;
  /** The fork a genesis that names none runs, as ethereumjs names it ('prague'). */
  fork: string;
  node: string;
  platform: string;
}

/** The repository root: src/cli/ from the sources, dist/cli/ or dist/bundle/ from the build, one level below it. */
function packageRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** Runs git in `root`; undefined when git is missing or `root` is no work tree. */
function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * The commit of the checkout Kestrel runs from. Asked of git at run time rather than recorded at build: the build is
 * redone only when a source changes, so a recorded commit would go stale across a checkout of the same sources. A
 * Kestrel installed inside another repository must not report that repository's commit, hence the top-level check.
 */
function sourceCommit(root: string): { commit: string; modified: boolean } {
  const top = git(root, ['rev-parse', '--show-toplevel']);
  if (top === undefined || realpathSync(top) !== realpathSync(root)) return { commit: 'unknown', modified: false };
  const commit = git(root, ['rev-parse', 'HEAD']);
  if (commit === undefined || !/^[0-9a-f]{40}$/.test(commit)) return { commit: 'unknown', modified: false };
  const status = git(root, ['status', '--porcelain', '--untracked-files=no']);
  return { commit, modified: status !== undefined && status !== '' };
}

/** Gathers what the version command prints (runs git, so only that command calls it). */
export function versionInfo(root = packageRoot()): VersionInfo {
  return {
    version: VERSION,
    ...sourceCommit(root),
    fork: DEFAULT_FORK,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The text printed, one fact a line. */
export function formatVersion(info: VersionInfo): string {
  const fork = info.fork.charAt(0).toUpperCase() + info.fork.slice(1);
  return [
    `kestreld ${info.version}`,
    `commit: ${info.commit}${info.modified ? ' (modified)' : ''}`,
    `default fork: ${fork}`,
    `node: ${info.node} ${info.platform}`,
  ].join('\n');
}
