// `kestreld auth token`: prints the bearer token for private methods (personal_, miner_).
import type { Command } from 'commander';
import { defaultHome, readAuthToken } from '../../node/home.ts';

/** Registers `auth token`. */
export function registerAuthCommands(program: Command): void {
  const auth = program.command('auth').description('credentials for private JSON-RPC methods');
  auth
    .command('token')
    .description('print the bearer token (send it as "Authorization: Bearer <token>")')
    .option('--home <dir>', 'node home directory')
    .option('--dev', 'use the dev home (~/.kestrel-dev)', false)
    .action((opts: { home?: string; dev: boolean }) => {
      console.log(readAuthToken(opts.home ?? defaultHome(opts.dev)));
    });
}
