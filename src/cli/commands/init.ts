// `kestreld init`: lays out a home with app.toml, genesis.json, auth.token, a validator key and keystore/.
import type { Command } from 'commander';
import { DEFAULT_BECH32_PREFIX, DEFAULT_CHAIN_ID } from '../../config/defaults.ts';
import { type Fork, FORKS } from '../../evm/index.ts';
import { defaultHome, homePaths, INIT_FORK, initHome } from '../../node/home.ts';

function parseForkFlag(value: string): Fork {
  if ((FORKS as readonly string[]).includes(value)) return value as Fork;
  throw new Error(`--fork: "${value}" is not one of ${FORKS.join(', ')}`);
}

/** Registers `init`. */
export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description('initialise a node home (config/app.toml, config/genesis.json, config/auth.token, keystore/)')
    .option('--home <dir>', 'node home directory')
    .option('--chain-id <id>', 'Cosmos chain id; the EIP-155 id is its number', DEFAULT_CHAIN_ID)
    .option('--dev', 'fund the ten well-known development accounts in genesis', false)
    .option('--overwrite', 'replace an existing genesis.json', false)
    .option('--bech32-prefix <hrp>', 'bech32 account address prefix', DEFAULT_BECH32_PREFIX)
    .option('--fork <name>', `the Ethereum fork the chain runs (${FORKS.join(', ')}); kept in genesis`, INIT_FORK)
    .action(
      (opts: {
        home?: string;
        chainId: string;
        dev: boolean;
        overwrite: boolean;
        bech32Prefix: string;
        fork: string;
      }) => {
        const home = opts.home ?? defaultHome(opts.dev);
        const fork = parseForkFlag(opts.fork);
        initHome(home, {
          chainId: opts.chainId,
          dev: opts.dev,
          overwrite: opts.overwrite,
          bech32Prefix: opts.bech32Prefix,
          fork,
        });
        console.log(`initialised ${home} (chain-id ${opts.chainId}, fork ${fork})`);
        console.log(`  genesis:    ${homePaths(home).genesis}`);
        console.log(`  auth token: ${homePaths(home).authToken}`);
      },
    );
}
