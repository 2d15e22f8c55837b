// kestreld: the node daemon and its client commands.
import { Command, CommanderError } from 'commander';
import { registerAuthCommands } from './commands/auth.ts';
import { registerDebugCommands } from './commands/debug.ts';
import { registerEvmCommands } from './commands/evm.ts';
import { registerInitCommand } from './commands/init.ts';
import { registerKeysCommands } from './commands/keys.ts';
import { registerQueryCommands } from './commands/query.ts';
import { registerStartCommand } from './commands/start.ts';
import { registerTestnetCommand } from './commands/testnet.ts';
import { registerTxCommands } from './commands/txStaking.ts';
import { registerVersionCommand } from './commands/version.ts';

/**
 * Builds the command tree for `argv` (process.argv's layout; the whole tree without it). `kestreld start` gets only
 * its own command: the program has no options of its own, so what the start parses, accepts and reports is the
 * same, and the node does not build the other commands' hundreds of options before it answers.
 */
export function buildProgram(argv?: string[]): Command {
  const program = new Command('kestreld')
    .description('Kestrel: a proof-of-stake EVM chain node')
    .showHelpAfterError()
    .exitOverride();
  if (argv?.[2] === 'start') {
    registerStartCommand(program);
    return program;
  }
  registerInitCommand(program);
  registerStartCommand(program);
  registerAuthCommands(program);
  registerKeysCommands(program);
  registerQueryCommands(program);
  registerTxCommands(program);
  registerDebugCommands(program);
  registerTestnetCommand(program);
  registerVersionCommand(program);
  // The engine loads only when an `evm` command runs, so other commands start no slower.
  registerEvmCommands(program, async () => (await import('../evm/statetest/kestrelEngine.ts')).kestrelEngine);
  return program;
}

/** Entry point used by bin/kestreld.js. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram(argv).parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode);
    console.error(`Error: ${(e as Error).message}`);
    process.exit(1);
  }
}
