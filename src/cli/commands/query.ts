// `kestreld query bank balances <address>` (and, from queryStaking.ts, the staking, distribution and slashing
// queries): asks a node over its CometBFT-style RPC (--node, abci_query with the protobuf request, as the Cosmos SDK
// CLI does) and prints the SDK's proto-JSON (--output json) or its YAML (text). Talks to the node over the network
// only; the messages are cosmjs-types', generated from the Cosmos SDK's protos.
import type { Command } from 'commander';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { DEFAULT_BECH32_PREFIX } from '../../config/defaults.ts';
import { toYaml } from '../output/yaml.ts';
import { abciQuery, accountArg, uint64 } from './abci.ts';
import { registerStakingQueryCommands } from './queryStaking.ts';

interface BalancesOptions {
  denom?: string;
  countTotal: boolean;
  height: string;
  output: string;
  node: string;
  limit: string;
  offset: string;
  pageKey?: string;
  reverse: boolean;
  bech32Prefix?: string;
}

async function balances(address: string, opts: BalancesOptions): Promise<string> {
  const height = opts.height;
  if (!/^\d+$/.test(height)) throw new Error(`invalid height ${height}: must be a non-negative integer (0 = latest)`);
  const account = accountArg(address, opts.bech32Prefix ?? DEFAULT_BECH32_PREFIX);
  let out: Record<string, unknown>;
  if (opts.denom !== undefined) {
    const req = QueryBalanceRequest.encode({ address: account, denom: opts.denom }).finish();
    const res = QueryBalanceResponse.decode(
      await abciQuery(opts.node, '/cosmos.bank.v1beta1.Query/Balance', req, height),
    );
    const c = res.balance ?? { denom: opts.denom, amount: '0' };
    out = { denom: c.denom, amount: c.amount };
  } else {
    const req = QueryAllBalancesRequest.encode({
      address: account,
      pagination: {
        key: opts.pageKey !== undefined ? new TextEncoder().encode(opts.pageKey) : new Uint8Array(0),
        offset: uint64('offset', opts.offset),
        limit: uint64('limit', opts.limit),
        countTotal: opts.countTotal,
        reverse: opts.reverse,
      },
      resolveDenom: false,
    }).finish();
    const res = QueryAllBalancesResponse.decode(
      await abciQuery(opts.node, '/cosmos.bank.v1beta1.Query/AllBalances', req, height),
    );
    // The SDK's proto-JSON: uint64 as a string, bytes as base64 (an empty next_key is null).
    const nextKey = res.pagination?.nextKey;
    out = {
      balances: res.balances.map((c) => ({ denom: c.denom, amount: c.amount })),
      pagination: {
        next_key: nextKey && nextKey.length > 0 ? Buffer.from(nextKey).toString('base64') : null,
        total: (res.pagination?.total ?? 0n).toString(),
      },
    };
  }
  return opts.output === 'json' ? JSON.stringify(out) + '\n' : toYaml(out as never);
}

/** Registers `query bank balances` and the staking, distribution and slashing queries (alias `q`). */
export function registerQueryCommands(program: Command): void {
  const query = program.command('query').alias('q').description('query a node (through its CometBFT-compatible RPC)');
  registerStakingQueryCommands(query);
  const bank = query.command('bank').description('bank module queries');
  bank
    .command('balances <address>')
    .description('all balances of an account (bech32, or 0x-hex converted to bech32)')
    .option('--denom <denom>', 'only this denom (prints the coin)')
    .option('--count-total', 'count the total number of balances', false)
    .option('--height <n>', 'query at this height (0 = latest)', '0')
    .option('-o, --output <format>', 'text (YAML) or json', 'text')
    .option('--node <url>', 'CometBFT-compatible RPC of the node', 'tcp://127.0.0.1:26657')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'balances to skip (not with --page-key)', '0')
    .option('--page-key <key>', 'next_key of the previous page (not with --offset)')
    .option('--reverse', 'descending denom order', false)
    .option('--bech32-prefix <hrp>', 'prefix used when a hex address is given', DEFAULT_BECH32_PREFIX)
    .action(async (address: string, opts: BalancesOptions) => {
      if (opts.output !== 'text' && opts.output !== 'json')
        throw new Error(`unknown --output "${opts.output}" (use text or json)`);
      process.stdout.write(await balances(address, opts));
    });
}
