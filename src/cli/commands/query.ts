// `kestreld query bank balances <address>`: asks a node over its CometBFT-style RPC (--node, abci_query with the
// protobuf request, as the Cosmos SDK CLI does) and prints the SDK's proto-JSON (--output json) or its YAML (text).
// Talks to the node over the network only; the messages come from proto/, independent of the node's own codec.
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import protobuf from 'protobufjs';
import { DEFAULT_BECH32_PREFIX } from '../../config/defaults.ts';
import { decodeAccAddress, toBech32 } from '../../primitives/bech32.ts';
import { toYaml } from '../output/yaml.ts';

const PROTO_DIR = fileURLToPath(new URL('../../../proto/', import.meta.url));

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

function loadTypes() {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => PROTO_DIR + target;
  root.loadSync('cosmos/bank/v1beta1/query.proto', { keepCase: true });
  return (name: string) => root.lookupType(`cosmos.bank.v1beta1.${name}`);
}

function uint(name: string, text: string): string {
  if (!/^\d+$/.test(text))
    throw new Error(`invalid argument "${text}" for "--${name}" flag: must be a non-negative integer`);
  return text;
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
        params: { path, data: Buffer.from(data).toString('hex'), height, prove: false },
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
  const type = loadTypes();
  let path: string;
  let req: Uint8Array;
  let resType: protobuf.Type;
  if (opts.denom !== undefined) {
    path = '/cosmos.bank.v1beta1.Query/Balance';
    req = type('QueryBalanceRequest').encode({ address: account, denom: opts.denom }).finish();
    resType = type('QueryBalanceResponse');
  } else {
    path = '/cosmos.bank.v1beta1.Query/AllBalances';
    const pagination = {
      key: opts.pageKey !== undefined ? Buffer.from(opts.pageKey) : undefined,
      offset: uint('offset', opts.offset),
      limit: uint('limit', opts.limit),
      count_total: opts.countTotal,
      reverse: opts.reverse,
    };
    req = type('QueryAllBalancesRequest').encode({ address: account, pagination }).finish();
    resType = type('QueryAllBalancesResponse');
  }
  const decoded = resType.decode(await abciQuery(opts.node, path, req, height));
  // Proto-JSON with original field names, defaults emitted, uint64 as strings, bytes as base64 or null.
  type Coin = { denom: string; amount: string };
  const json = resType.toObject(decoded, { longs: String, bytes: String, defaults: true, arrays: true }) as {
    balance?: Coin;
    balances?: Coin[];
    pagination?: { next_key?: string | null; total?: string };
  };
  let out: Record<string, unknown>;
  if (opts.denom !== undefined) {
    const c = json.balance ?? { denom: opts.denom, amount: '0' };
    out = { denom: c.denom, amount: c.amount };
  } else {
    const p = json.pagination ?? {};
    out = {
      balances: (json.balances ?? []).map((c) => ({
        denom: c.denom,
        amount: c.amount,
      })),
      pagination: { next_key: p.next_key ? p.next_key : null, total: p.total ?? '0' },
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
