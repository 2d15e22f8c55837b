// `kestreld auth token`: prints the bearer token for private methods (personal_, miner_).
import type { Command } from 'commander';
import { DEFAULT_CHAIN_ID } from '../../config/defaults.ts';
import { loadConfig } from '../../config/load.ts';
import { defaultHome, readAuthTokenFile } from '../../node/home.ts';

/** Registers `auth token`. */
export function registerAuthCommands(program: Command): void {
  const auth = program.command('auth').description('credentials for private JSON-RPC methods');
  auth
    .command('token')
    .description('print the bearer token (send it as "Authorization: Bearer <token>")')
    .option('--home <dir>', 'node home directory')
    .option('--dev', 'use the dev home (~/.kestrel-dev)', false)
    .option(
      '--json-rpc.auth-token-file <path>',
      'token file (default: json-rpc.auth-token-file in app.toml, else config/auth.token)',
    )
    .action((opts: { home?: string; dev: boolean; 'jsonRpc.authTokenFile'?: string }) => {
      const home = opts.home ?? defaultHome(opts.dev);
      const config = loadConfig(
        home,
        { dev: opts.dev, 'json-rpc.auth-token-file': opts['jsonRpc.authTokenFile'] },
        DEFAULT_CHAIN_ID,
      );
      console.log(readAuthTokenFile(config.jsonRpc.authTokenFile));
    });
}
