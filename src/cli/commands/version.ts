// `kestreld version` and `kestreld --version`: the release, the git commit and the default fork.
import { type Command, CommanderError } from 'commander';
import { formatVersion, versionInfo } from '../version.ts';

/** Registers the `version` command and the top-level `-V, --version` flag (both print the same lines). */
export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description('print the version, git commit and default fork')
    .action(() => {
      console.log(formatVersion(versionInfo()));
    });
  // Commander's own .version() takes its text when the program is built; git runs only when the flag is given.
  program.option('-V, --version', 'print the version, git commit and default fork');
  program.on('option:version', () => {
    console.log(formatVersion(versionInfo()));
    throw new CommanderError(0, 'kestreld.version', '');
  });
}
