// `kestreld query staking|distribution|slashing …`: the Cosmos SDK CLI's queries of these modules, asked over the
// node's CometBFT-style RPC (abci_query with the protobuf request) and printed in the SDK CLI's shapes (JSON with
// -o json, its YAML otherwise). Addresses may be given as 0x-hex (converted to the chain's bech32 forms).
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import * as D from 'cosmjs-types/cosmos/distribution/v1beta1/query';
import * as SL from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import * as S from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { DEFAULT_BECH32_PREFIX } from '../../config/defaults.ts';
import { decodeAccAddress, toBech32 } from '../../primitives/bech32.ts';
import {
  decCoinsJson,
  delegationJson,
  distributionParamsJson,
  pageJson,
  poolJson,
  signingInfoJson,
  slashingParamsJson,
  stakingParamsJson,
  unbondingJson,
  validatorJson,
  type Json,
} from '../output/cosmosJson.ts';
import { toYaml } from '../output/yaml.ts';
import { abciQuery, accountArg, uint64 } from './abci.ts';

interface QueryOpts {
  height: string;
  output: string;
  node: string;
  bech32Prefix: string;
}

interface PageOpts extends QueryOpts {
  limit: string;
  offset: string;
  pageKey?: string;
  countTotal: boolean;
  reverse: boolean;
}

/** A protobuf message codec as cosmjs-types generates it. */
interface Codec<T> {
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
  fromPartial(o: object): T;
}

function withQueryOptions(cmd: Command): Command {
  return cmd
    .option('--height <n>', 'query at this height (0 = latest)', '0')
    .option('-o, --output <format>', 'text (YAML) or json', 'text')
    .option('--node <url>', 'CometBFT-compatible RPC of the node', 'tcp://127.0.0.1:26657')
    .option('--bech32-prefix <hrp>', 'account prefix used when a hex address is given', DEFAULT_BECH32_PREFIX);
}

function withPageOptions(cmd: Command): Command {
  return withQueryOptions(cmd)
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'items to skip (not with --page-key)', '0')
    .option('--page-key <base64>', 'next_key of the previous page, as printed (not with --offset)')
    .option('--count-total', 'count the total number of items', false)
    .option('--reverse', 'descending order', false);
}

function pageRequest(o: PageOpts): PageRequest {
  let key = new Uint8Array(0);
  if (o.pageKey !== undefined) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(o.pageKey)) throw new Error(`invalid --page-key "${o.pageKey}": not base64`);
    key = Uint8Array.from(Buffer.from(o.pageKey, 'base64'));
  }
  return {
    key,
    offset: uint64('offset', o.offset),
    limit: uint64('limit', o.limit),
    countTotal: o.countTotal,
    reverse: o.reverse,
  };
}

/** Sends one query and decodes the answer. */
async function ask<Req, Res>(
  o: QueryOpts,
  path: string,
  reqCodec: Codec<Req>,
  req: object,
  resCodec: Codec<Res>,
): Promise<Res> {
  if (o.output !== 'text' && o.output !== 'json') throw new Error(`unknown --output "${o.output}" (use text or json)`);
  if (!/^\d+$/.test(o.height))
    throw new Error(`invalid height ${o.height}: must be a non-negative integer (0 = latest)`);
  const bytes = reqCodec.encode(reqCodec.fromPartial(req)).finish();
  return resCodec.decode(await abciQuery(o.node, path, bytes, o.height));
}

function print(out: Json, o: QueryOpts): void {
  process.stdout.write(o.output === 'json' ? JSON.stringify(out) + '\n' : toYaml(out));
}

/** A validator operator address as valoper bech32: 0x-hex is converted, bech32 checked (SDK wording). */
export function validatorArg(text: string, prefix: string): string {
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return toBech32(Buffer.from(text.slice(2), 'hex'), `${prefix}valoper`);
  decodeAccAddress(text, `${prefix}valoper`);
  return text;
}

/**
 * A consensus address as valcons bech32, from a valcons address, the SDK's JSON public key
 * ({"@type":"/cosmos.crypto.ed25519.PubKey","key":"…"}, what `signing-info` takes) or a bare base64 ed25519 key.
 */
export function consAddressArg(text: string, prefix: string): string {
  const valcons = `${prefix}valcons`;
  if (text.startsWith(`${valcons}1`)) {
    decodeAccAddress(text, valcons);
    return text;
  }
  let key: Buffer;
  if (text.trim().startsWith('{')) {
    let pk: { '@type'?: string; key?: string };
    try {
      pk = JSON.parse(text) as typeof pk;
    } catch (e) {
      throw new Error(`invalid consensus public key JSON: ${(e as Error).message}`);
    }
    if (pk['@type'] !== '/cosmos.crypto.ed25519.PubKey')
      throw new Error(
        `unsupported consensus key type ${JSON.stringify(pk['@type'])}: want /cosmos.crypto.ed25519.PubKey`,
      );
    key = Buffer.from(String(pk.key ?? ''), 'base64');
  } else {
    key = Buffer.from(text, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || key.toString('base64') !== text)
      throw new Error(`expected a ${valcons} address or a public key (base64 or the SDK's JSON), got '${text}'`);
  }
  if (key.length !== 32) throw new Error(`an ed25519 consensus public key has 32 bytes, got ${key.length}`);
  // CometBFT's address of an ed25519 key: the first 20 bytes of its sha256.
  return toBech32(createHash('sha256').update(key).digest().subarray(0, 20), valcons);
}

const STATUS_ALIASES: Record<string, string> = {
  bonded: 'BOND_STATUS_BONDED',
  unbonding: 'BOND_STATUS_UNBONDING',
  unbonded: 'BOND_STATUS_UNBONDED',
};

function registerStaking(query: Command): void {
  const staking = query.command('staking').description('staking module queries');
  const path = (m: string) => `/cosmos.staking.v1beta1.Query/${m}`;
  withPageOptions(staking.command('validators'))
    .description('all validators (optionally those of one status)')
    .option('--status <status>', 'bonded, unbonding or unbonded (or BOND_STATUS_…)')
    .action(async (o: PageOpts & { status?: string }) => {
      const status = o.status === undefined ? '' : (STATUS_ALIASES[o.status] ?? o.status);
      const res = await ask(
        o,
        path('Validators'),
        S.QueryValidatorsRequest,
        { status, pagination: pageRequest(o) },
        S.QueryValidatorsResponse,
      );
      print({ validators: res.validators.map(validatorJson), pagination: pageJson(res.pagination) }, o);
    });
  withQueryOptions(staking.command('validator <validator-addr>'))
    .description('one validator')
    .action(async (val: string, o: QueryOpts) => {
      const validatorAddr = validatorArg(val, o.bech32Prefix);
      const res = await ask(o, path('Validator'), S.QueryValidatorRequest, { validatorAddr }, S.QueryValidatorResponse);
      print(validatorJson(res.validator), o);
    });
  withQueryOptions(staking.command('delegation <delegator-addr> <validator-addr>'))
    .description('a delegation: its shares and the tokens they are worth')
    .action(async (del: string, val: string, o: QueryOpts) => {
      const req = { delegatorAddr: accountArg(del, o.bech32Prefix), validatorAddr: validatorArg(val, o.bech32Prefix) };
      const res = await ask(o, path('Delegation'), S.QueryDelegationRequest, req, S.QueryDelegationResponse);
      print(delegationJson(res.delegationResponse!), o);
    });
  withPageOptions(staking.command('delegations <delegator-addr>'))
    .description("a delegator's delegations")
    .action(async (del: string, o: PageOpts) => {
      const req = { delegatorAddr: accountArg(del, o.bech32Prefix), pagination: pageRequest(o) };
      const res = await ask(
        o,
        path('DelegatorDelegations'),
        S.QueryDelegatorDelegationsRequest,
        req,
        S.QueryDelegatorDelegationsResponse,
      );
      print(
        { delegation_responses: res.delegationResponses.map(delegationJson), pagination: pageJson(res.pagination) },
        o,
      );
    });
  withPageOptions(staking.command('delegations-to <validator-addr>'))
    .description("a validator's delegations")
    .action(async (val: string, o: PageOpts) => {
      const req = { validatorAddr: validatorArg(val, o.bech32Prefix), pagination: pageRequest(o) };
      const res = await ask(
        o,
        path('ValidatorDelegations'),
        S.QueryValidatorDelegationsRequest,
        req,
        S.QueryValidatorDelegationsResponse,
      );
      print(
        { delegation_responses: res.delegationResponses.map(delegationJson), pagination: pageJson(res.pagination) },
        o,
      );
    });
  withQueryOptions(staking.command('unbonding-delegation <delegator-addr> <validator-addr>'))
    .description("a delegator's unbonding entries with a validator")
    .action(async (del: string, val: string, o: QueryOpts) => {
      const req = { delegatorAddr: accountArg(del, o.bech32Prefix), validatorAddr: validatorArg(val, o.bech32Prefix) };
      const res = await ask(
        o,
        path('UnbondingDelegation'),
        S.QueryUnbondingDelegationRequest,
        req,
        S.QueryUnbondingDelegationResponse,
      );
      print(unbondingJson(res.unbond), o);
    });
  withPageOptions(staking.command('unbonding-delegations <delegator-addr>'))
    .description("a delegator's unbonding delegations")
    .action(async (del: string, o: PageOpts) => {
      const req = { delegatorAddr: accountArg(del, o.bech32Prefix), pagination: pageRequest(o) };
      const res = await ask(
        o,
        path('DelegatorUnbondingDelegations'),
        S.QueryDelegatorUnbondingDelegationsRequest,
        req,
        S.QueryDelegatorUnbondingDelegationsResponse,
      );
      print(
        { unbonding_responses: res.unbondingResponses.map(unbondingJson), pagination: pageJson(res.pagination) },
        o,
      );
    });
  withQueryOptions(staking.command('pool'))
    .description('bonded and not-bonded tokens')
    .action(async (o: QueryOpts) => {
      print(poolJson((await ask(o, path('Pool'), S.QueryPoolRequest, {}, S.QueryPoolResponse)).pool), o);
    });
  withQueryOptions(staking.command('params'))
    .description('staking parameters')
    .action(async (o: QueryOpts) => {
      print(
        stakingParamsJson((await ask(o, path('Params'), S.QueryParamsRequest, {}, S.QueryParamsResponse)).params),
        o,
      );
    });
}

function registerDistribution(query: Command): void {
  const distribution = query.command('distribution').description('distribution module queries');
  const path = (m: string) => `/cosmos.distribution.v1beta1.Query/${m}`;
  withQueryOptions(distribution.command('rewards <delegator-addr> [validator-addr]'))
    .description("a delegator's rewards: with one validator, or from every validator with their total")
    .action(async (del: string, val: string | undefined, o: QueryOpts) => {
      const delegatorAddress = accountArg(del, o.bech32Prefix);
      if (val === undefined) {
        const res = await ask(
          o,
          path('DelegationTotalRewards'),
          D.QueryDelegationTotalRewardsRequest,
          { delegatorAddress },
          D.QueryDelegationTotalRewardsResponse,
        );
        const rewards = res.rewards.map((r) => ({
          validator_address: r.validatorAddress,
          reward: decCoinsJson(r.reward),
        }));
        print({ rewards, total: decCoinsJson(res.total) }, o);
        return;
      }
      const req = { delegatorAddress, validatorAddress: validatorArg(val, o.bech32Prefix) };
      const res = await ask(
        o,
        path('DelegationRewards'),
        D.QueryDelegationRewardsRequest,
        req,
        D.QueryDelegationRewardsResponse,
      );
      print({ rewards: decCoinsJson(res.rewards) }, o);
    });
  withQueryOptions(distribution.command('commission <validator-addr>'))
    .description("a validator's accumulated commission")
    .action(async (val: string, o: QueryOpts) => {
      const req = { validatorAddress: validatorArg(val, o.bech32Prefix) };
      const res = await ask(
        o,
        path('ValidatorCommission'),
        D.QueryValidatorCommissionRequest,
        req,
        D.QueryValidatorCommissionResponse,
      );
      print({ commission: decCoinsJson(res.commission.commission) }, o);
    });
  withQueryOptions(distribution.command('validator-outstanding-rewards <validator-addr>'))
    .description("a validator's rewards not yet withdrawn (its delegators' and its commission)")
    .action(async (val: string, o: QueryOpts) => {
      const req = { validatorAddress: validatorArg(val, o.bech32Prefix) };
      const res = await ask(
        o,
        path('ValidatorOutstandingRewards'),
        D.QueryValidatorOutstandingRewardsRequest,
        req,
        D.QueryValidatorOutstandingRewardsResponse,
      );
      print({ rewards: decCoinsJson(res.rewards.rewards) }, o);
    });
  withQueryOptions(distribution.command('community-pool'))
    .description('the community pool')
    .action(async (o: QueryOpts) => {
      const res = await ask(o, path('CommunityPool'), D.QueryCommunityPoolRequest, {}, D.QueryCommunityPoolResponse);
      print({ pool: decCoinsJson(res.pool) }, o);
    });
  withQueryOptions(distribution.command('params'))
    .description('distribution parameters')
    .action(async (o: QueryOpts) => {
      print(
        distributionParamsJson((await ask(o, path('Params'), D.QueryParamsRequest, {}, D.QueryParamsResponse)).params),
        o,
      );
    });
}

function registerSlashing(query: Command): void {
  const slashing = query.command('slashing').description('slashing module queries');
  const path = (m: string) => `/cosmos.slashing.v1beta1.Query/${m}`;
  withQueryOptions(slashing.command('signing-info <validator-conspub-or-valcons>'))
    .description("a validator's signing info, by consensus public key (the SDK's JSON or base64) or valcons address")
    .action(async (who: string, o: QueryOpts) => {
      const consAddress = consAddressArg(who, o.bech32Prefix);
      const res = await ask(
        o,
        path('SigningInfo'),
        SL.QuerySigningInfoRequest,
        { consAddress },
        SL.QuerySigningInfoResponse,
      );
      print(signingInfoJson(res.valSigningInfo), o);
    });
  withPageOptions(slashing.command('signing-infos'))
    .description("every validator's signing info")
    .action(async (o: PageOpts) => {
      const res = await ask(
        o,
        path('SigningInfos'),
        SL.QuerySigningInfosRequest,
        { pagination: pageRequest(o) },
        SL.QuerySigningInfosResponse,
      );
      print({ info: res.info.map(signingInfoJson), pagination: pageJson(res.pagination) }, o);
    });
  withQueryOptions(slashing.command('params'))
    .description('slashing parameters')
    .action(async (o: QueryOpts) => {
      print(
        slashingParamsJson((await ask(o, path('Params'), SL.QueryParamsRequest, {}, SL.QueryParamsResponse)).params),
        o,
      );
    });
}

/** Registers `query staking …`, `query distribution …` and `query slashing …` under `query`. */
export function registerStakingQueryCommands(query: Command): void {
  registerStaking(query);
  registerDistribution(query);
  registerSlashing(query);
}
