// `kestreld query bank balances <address>`: asks a node over its CometBFT-style RPC (--node, abci_query with the
// protobuf request, as the Cosmos SDK CLI does) and prints the SDK's proto-JSON (--output json) or its YAML (text).
// Talks to the node over the network only; the messages are cosmjs-types', generated from the Cosmos SDK's protos.
import type { Command } from 'commander';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { DEFAULT_BECH32_PREFIX } from '../../config/defaults.ts';
import { decodeAccAddress, toBech32 } from '../../primitives/bech32.ts';
import { toYaml } from '../output/yaml.ts';
import { bareHex } from '../../primitives/hex.ts';

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

function uint64(name: string, text: string): bigint {
  if (!/^\d+$/.test(text))
    throw new Error(`invalid argument "${text}" for "--${name}" flag: must be a non-negative integer`);
  // Wraps past 2^64 as the Long-based encoder before it did.
  return BigInt.asUintN(64, BigInt(text));
}

/** The account as bech32: a hex address is converted, a bech32 one checked (SDK wording on failure). */
export function accountArg(text: string, prefix: string): string {
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return toBech32(Uint8Array.from(Buffer.from(text.slice(2), 'hex')), prefix);
  decodeAccAddress(text, prefix);
  return text;
}

/** http://host:port for a CometBFT-style laddr (tcp://host:port). */
export function nodeUrl(node: string): string {
  const m = /^(tcp|http|https):\/\/([^/]+?)\/?$/.exec(node);
  if (!m) throw new Error(`invalid --node "${node}": expected tcp://host:port`);
  return `${m[1] === 'https' ? 'https' : 'http'}://${m[2]}`;
}

/** Runs abci_query over JSON-RPC; returns the response value bytes or throws one clear line. */
export async function abciQuery(node: string, path: string, data: Uint8Array, height: string): Promise<Uint8Array> {
  const url = nodeUrl(node);
  let body: {
    result?: { response: { code?: number; log?: string; value?: string | null } };
    error?: { message: string; data?: string };
  };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'abci_query',
        params: { path, data: bareHex(data), height, prove: false },
      }),
      signal: AbortSignal.timeout(30_000),
    });
    body = (await res.json()) as typeof body;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    const why =
      cause === 'ECONNREFUSED'
        ? `dial tcp ${url.replace(/^https?:\/\//, '')}: connect: connection refused`
        : (e as Error).message;
    throw new Error(`post failed: Post "${url}": ${why}`);
  }
  if (body.error) throw new Error(`${body.error.message}${body.error.data ? `: ${body.error.data}` : ''}`);
  const r = body.result?.response;
  if (!r) throw new Error('malformed abci_query response');
  if (r.code) throw new Error(r.log ?? `query failed with code ${r.code}`);
  return Uint8Array.from(Buffer.from(r.value ?? '', 'base64'));
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

/** Registers `query bank balances` (alias `q`). */
export function registerQueryCommands(program: Command): void {
  const query = program.command('query').alias('q').description('query a node (through its CometBFT-compatible RPC)');
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
