// cosmos.distribution.v1beta1.Query over the distribution keeper at the queried block. Rewards are computed as the
// SDK's query does (the validator's current period ended on a scratch copy); checks and messages follow
// x/distribution/keeper/grpc_query.go. Amounts are DecCoins: LegacyDec's internal integer form on the wire.
import {
  QueryCommunityPoolResponse,
  QueryDelegationRewardsResponse,
  QueryDelegationTotalRewardsResponse,
  QueryDelegatorValidatorsResponse,
  QueryDelegatorWithdrawAddressResponse,
  QueryParamsResponse,
  QueryValidatorCommissionResponse,
  QueryValidatorDistributionInfoResponse,
  QueryValidatorOutstandingRewardsResponse,
  QueryValidatorSlashesResponse,
} from 'cosmjs-types/cosmos/distribution/v1beta1/query';
import { InvalidParamsError, NotFoundError } from '../../../errors/index.ts';
import { concatBytes, u64be } from '../../../primitives/hex.ts';
import { paginate } from '../../bank/pagination.ts';
import { decodeRequest } from '../../bank/proto.ts';
import type { Modules } from '../modules.ts';
import { Bech32Codec, compareBytes, decCoins, ModuleQueries, pageResponse, type ModulesAt } from './common.ts';

/** The service's gRPC name. */
export const DISTRIBUTION_QUERY_SERVICE = 'cosmos.distribution.v1beta1.Query';

const EMPTY_VAL = 'empty validator address';
const EMPTY_DEL = 'empty delegator address';

/** The distribution query service. */
export function distributionQueries(modulesAt: ModulesAt, prefix: string): ModuleQueries {
  const codec = new Bech32Codec(prefix);

  /** The validator of a request (by its `validator_address` field), which must exist. */
  const validator = (m: Modules, text: string): Uint8Array => {
    const val = codec.val(text, EMPTY_VAL);
    if (m.staking.validator(val) === undefined) throw new NotFoundError(`${text}: validator does not exist`);
    return val;
  };

  /** A delegation's rewards now (Dec); the delegation must exist. */
  const rewards = (m: Modules, del: Uint8Array, val: Uint8Array): bigint => {
    if (m.staking.delegation(del, val) === undefined) throw new NotFoundError('delegation does not exist');
    return m.distribution.pendingRewards(del, val);
  };

  const denom = (m: Modules) => m.env.params.bondDenom;

  return new ModuleQueries(`/${DISTRIBUTION_QUERY_SERVICE}/`, modulesAt, {
    Params(data, m) {
      decodeRequest(data, {});
      return QueryParamsResponse.encode({
        params: {
          communityTax: m.env.params.communityTax.toString(),
          // Deprecated in the SDK (always zero): no proposer bonus here either.
          baseProposerReward: '0',
          bonusProposerReward: '0',
          withdrawAddrEnabled: true,
        },
      }).finish();
    },
    ValidatorDistributionInfo(data, m) {
      const val = validator(m, decodeRequest(data, { 1: 'validator_address' }).strings.validator_address!);
      const self = rewards(m, val, val);
      return QueryValidatorDistributionInfoResponse.encode({
        // The operator's account address, as the SDK answers.
        operatorAddress: codec.accString(val),
        selfBondRewards: decCoins(denom(m), self),
        commission: decCoins(denom(m), m.distribution.commission(val)),
      }).finish();
    },
    ValidatorOutstandingRewards(data, m) {
      const val = validator(m, decodeRequest(data, { 1: 'validator_address' }).strings.validator_address!);
      return QueryValidatorOutstandingRewardsResponse.encode({
        rewards: { rewards: decCoins(denom(m), m.distribution.outstanding(val)) },
      }).finish();
    },
    ValidatorCommission(data, m) {
      const val = validator(m, decodeRequest(data, { 1: 'validator_address' }).strings.validator_address!);
      return QueryValidatorCommissionResponse.encode({
        commission: { commission: decCoins(denom(m), m.distribution.commission(val)) },
      }).finish();
    },
    ValidatorSlashes(data, m) {
      const req = decodeRequest(data, { 1: 'validator_address' }, 4, { 2: 'starting_height', 3: 'ending_height' });
      if (req.strings.validator_address === '') throw new InvalidParamsError(EMPTY_VAL);
      const { starting_height: from, ending_height: to } = req.ints as {
        starting_height: bigint;
        ending_height: bigint;
      };
      if (to < from) throw new InvalidParamsError(`starting height greater than ending height (${from} > ${to})`);
      const val = codec.val(req.strings.validator_address!, EMPTY_VAL);
      // Store order: by height, then period (the SDK's slash-event key).
      const events = m.distribution.slashEvents(val).filter((e) => e.height >= from && e.height <= to);
      const { page, res } = paginate(events, (e) => concatBytes(u64be(e.height), u64be(e.period)), req.page);
      return QueryValidatorSlashesResponse.encode({
        slashes: page.map((e) => ({ validatorPeriod: e.period, fraction: e.fraction.toString() })),
        pagination: pageResponse(res),
      }).finish();
    },
    DelegationRewards(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_address', 2: 'validator_address' }).strings;
      const del = codec.acc(req.delegator_address!, EMPTY_DEL);
      if (req.validator_address === '') throw new InvalidParamsError(EMPTY_VAL);
      const val = validator(m, req.validator_address!);
      return QueryDelegationRewardsResponse.encode({ rewards: decCoins(denom(m), rewards(m, del, val)) }).finish();
    },
    DelegationTotalRewards(data, m) {
      const del = codec.acc(decodeRequest(data, { 1: 'delegator_address' }).strings.delegator_address!, EMPTY_DEL);
      let total = 0n;
      const rows = m.staking
        .delegatorValidators(del)
        .sort(compareBytes)
        .map((val) => {
          const r = rewards(m, del, val);
          total += r;
          return { validatorAddress: codec.valString(val), reward: decCoins(denom(m), r) };
        });
      return QueryDelegationTotalRewardsResponse.encode({ rewards: rows, total: decCoins(denom(m), total) }).finish();
    },
    DelegatorValidators(data, m) {
      const del = codec.acc(decodeRequest(data, { 1: 'delegator_address' }).strings.delegator_address!, EMPTY_DEL);
      return QueryDelegatorValidatorsResponse.encode({
        validators: m.staking
          .delegatorValidators(del)
          .sort(compareBytes)
          .map((v) => codec.valString(v)),
      }).finish();
    },
    DelegatorWithdrawAddress(data, m) {
      const del = codec.acc(decodeRequest(data, { 1: 'delegator_address' }).strings.delegator_address!, EMPTY_DEL);
      return QueryDelegatorWithdrawAddressResponse.encode({
        withdrawAddress: codec.accString(m.distribution.withdrawAddress(del)),
      }).finish();
    },
    CommunityPool(data, m) {
      decodeRequest(data, {});
      return QueryCommunityPoolResponse.encode({ pool: decCoins(denom(m), m.distribution.communityPool()) }).finish();
    },
  });
}
