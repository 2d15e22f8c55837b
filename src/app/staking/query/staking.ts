// cosmos.staking.v1beta1.Query over the staking keeper at the queried block. Checks, messages and orders follow
// the SDK keeper (x/staking/keeper/grpc_query.go): lists come in store-key order (operator, then delegator or
// validator address bytes) and paginate with the SDK's length-prefixed keys.
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import {
  QueryDelegationResponse,
  QueryDelegatorDelegationsResponse,
  QueryDelegatorUnbondingDelegationsResponse,
  QueryDelegatorValidatorResponse,
  QueryDelegatorValidatorsResponse,
  QueryParamsResponse,
  QueryPoolResponse,
  QueryRedelegationsResponse,
  QueryUnbondingDelegationResponse,
  QueryValidatorDelegationsResponse,
  QueryValidatorResponse,
  QueryValidatorsResponse,
  QueryValidatorUnbondingDelegationsResponse,
} from 'cosmjs-types/cosmos/staking/v1beta1/query';
import type {
  DelegationResponse,
  RedelegationResponse,
  UnbondingDelegation,
  Validator as ValidatorProto,
} from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { InvalidParamsError, NotFoundError } from '../../../errors/index.ts';
import { bytesEqual } from '../../../primitives/hex.ts';
import { paginate } from '../../bank/pagination.ts';
import { decodeRequest } from '../../bank/proto.ts';
import type { Modules } from '../modules.ts';
import { MAX_ENTRIES, tokensFromShares } from '../staking.ts';
import { BOND_STATUS_NAMES, type BondStatus, type Validator } from '../types.ts';
import {
  Bech32Codec,
  compareBytes,
  duration,
  ModuleQueries,
  pageKey,
  pageResponse,
  timestamp,
  type ModulesAt,
} from './common.ts';

/** The service's gRPC name. */
export const STAKING_QUERY_SERVICE = 'cosmos.staking.v1beta1.Query';

const EMPTY_VAL = 'validator address cannot be empty';
const EMPTY_DEL = 'delegator address cannot be empty';
/** The type URL of a validator's consensus key. */
export const ED25519_PUBKEY_TYPE = '/cosmos.crypto.ed25519.PubKey';

/** A validator as the SDK's Validator message. */
export function validatorProto(v: Validator, codec: Bech32Codec): ValidatorProto {
  const c = v.commission;
  return {
    operatorAddress: codec.valString(v.operator),
    consensusPubkey: { typeUrl: ED25519_PUBKEY_TYPE, value: PubKey.encode({ key: v.consPubkey }).finish() },
    jailed: v.jailed,
    status: v.status as number,
    tokens: v.tokens.toString(),
    delegatorShares: v.delegatorShares.toString(),
    description: { ...v.description },
    unbondingHeight: v.unbondingHeight,
    unbondingTime: timestamp(v.unbondingTime),
    commission: {
      commissionRates: {
        rate: c.rate.toString(),
        maxRate: c.maxRate.toString(),
        maxChangeRate: c.maxChangeRate.toString(),
      },
      updateTime: timestamp(c.updateTime),
    },
    minSelfDelegation: v.minSelfDelegation.toString(),
    // Kestrel's unbondings are never put on hold by another module, and it keeps no per-validator id list.
    unbondingOnHoldRefCount: 0n,
    unbondingIds: [],
  };
}

const byOperator = (a: Validator, b: Validator) => compareBytes(a.operator, b.operator);

/** The staking query service. */
export function stakingQueries(modulesAt: ModulesAt, prefix: string): ModuleQueries {
  const codec = new Bech32Codec(prefix);

  const delegationResponse = (m: Modules, del: Uint8Array, v: Validator, shares: bigint): DelegationResponse => ({
    delegation: {
      delegatorAddress: codec.accString(del),
      validatorAddress: codec.valString(v.operator),
      shares: shares.toString(),
    },
    balance: { denom: m.env.params.bondDenom, amount: tokensFromShares(v, shares).toString() },
  });

  const unbonding = (m: Modules, del: Uint8Array, val: Uint8Array): UnbondingDelegation => ({
    delegatorAddress: codec.accString(del),
    validatorAddress: codec.valString(val),
    entries: m.staking.unbondingEntries(del, val).map((e) => ({
      creationHeight: e.creationHeight,
      completionTime: timestamp(e.completionTime),
      initialBalance: e.initialBalance.toString(),
      balance: e.balance.toString(),
      unbondingId: e.id,
      unbondingOnHoldRefCount: 0n,
    })),
  });

  // The SDK answers with the destination's current exchange rate and leaves the redelegation's own entry list empty.
  const redelegation = (m: Modules, del: Uint8Array, src: Uint8Array, dst: Uint8Array): RedelegationResponse => {
    const vd = m.staking.validator(dst);
    return {
      redelegation: {
        delegatorAddress: codec.accString(del),
        validatorSrcAddress: codec.valString(src),
        validatorDstAddress: codec.valString(dst),
        entries: [],
      },
      entries: m.staking.redelegationEntries(del, src, dst).map((e) => ({
        redelegationEntry: {
          creationHeight: e.creationHeight,
          completionTime: timestamp(e.completionTime),
          initialBalance: e.initialBalance.toString(),
          sharesDst: e.sharesDst.toString(),
          unbondingId: e.id,
          unbondingOnHoldRefCount: 0n,
        },
        balance: (vd === undefined ? 0n : tokensFromShares(vd, e.sharesDst)).toString(),
      })),
    };
  };

  const mustValidator = (m: Modules, val: Uint8Array, text: string): Validator => {
    const v = m.staking.validator(val);
    if (v === undefined) throw new NotFoundError(`validator ${text} not found`);
    return v;
  };

  return new ModuleQueries(`/${STAKING_QUERY_SERVICE}/`, modulesAt, {
    Validators(data, m) {
      const req = decodeRequest(data, { 1: 'status' }, 2);
      const status = req.strings.status!;
      const wanted = BOND_STATUS_NAMES.indexOf(status);
      if (status !== '' && wanted < 1) throw new InvalidParamsError(`invalid validator status ${status}`);
      const all = m.staking
        .allValidatorList()
        .filter((v) => status === '' || v.status === (wanted as BondStatus))
        .sort(byOperator);
      const { page, res } = paginate(all, (v) => pageKey(v.operator), req.page);
      return QueryValidatorsResponse.encode({
        validators: page.map((v) => validatorProto(v, codec)),
        pagination: pageResponse(res),
      }).finish();
    },
    Validator(data, m) {
      const text = decodeRequest(data, { 1: 'validator_addr' }).strings.validator_addr!;
      const v = mustValidator(m, codec.val(text, EMPTY_VAL), text);
      return QueryValidatorResponse.encode({ validator: validatorProto(v, codec) }).finish();
    },
    ValidatorDelegations(data, m) {
      const req = decodeRequest(data, { 1: 'validator_addr' }, 2);
      const val = codec.val(req.strings.validator_addr!, EMPTY_VAL);
      const v = m.staking.validator(val);
      const dels = v === undefined ? [] : m.staking.validatorDelegators(val).sort(compareBytes);
      const { page, res } = paginate(dels, (d) => pageKey(d, val), req.page);
      return QueryValidatorDelegationsResponse.encode({
        delegationResponses: page.map((d) => delegationResponse(m, d, v!, m.staking.delegation(d, val)!)),
        pagination: pageResponse(res),
      }).finish();
    },
    ValidatorUnbondingDelegations(data, m) {
      const req = decodeRequest(data, { 1: 'validator_addr' }, 2);
      const val = codec.val(req.strings.validator_addr!, EMPTY_VAL);
      const dels = m.staking
        .unbondingPairs()
        .filter(([, v]) => bytesEqual(v, val))
        .map(([d]) => d)
        .sort(compareBytes);
      const { page, res } = paginate(dels, (d) => pageKey(d), req.page);
      return QueryValidatorUnbondingDelegationsResponse.encode({
        unbondingResponses: page.map((d) => unbonding(m, d, val)),
        pagination: pageResponse(res),
      }).finish();
    },
    Delegation(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_addr', 2: 'validator_addr' }).strings;
      const del = codec.acc(req.delegator_addr!, EMPTY_DEL);
      const val = codec.val(req.validator_addr!, EMPTY_VAL);
      const shares = m.staking.delegation(del, val);
      const v = m.staking.validator(val);
      if (shares === undefined || v === undefined)
        throw new NotFoundError(
          `delegation with delegator ${req.delegator_addr} not found for validator ${req.validator_addr}`,
        );
      return QueryDelegationResponse.encode({ delegationResponse: delegationResponse(m, del, v, shares) }).finish();
    },
    UnbondingDelegation(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_addr', 2: 'validator_addr' }).strings;
      const del = codec.acc(req.delegator_addr!, EMPTY_DEL);
      const val = codec.val(req.validator_addr!, EMPTY_VAL);
      if (m.staking.unbondingEntries(del, val).length === 0)
        throw new NotFoundError(
          `unbonding delegation with delegator ${req.delegator_addr} not found for validator ${req.validator_addr}`,
        );
      return QueryUnbondingDelegationResponse.encode({ unbond: unbonding(m, del, val) }).finish();
    },
    DelegatorDelegations(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_addr' }, 2);
      const del = codec.acc(req.strings.delegator_addr!, EMPTY_DEL);
      const vals = m.staking.delegatorValidators(del).sort(compareBytes);
      const { page, res } = paginate(vals, (v) => pageKey(v), req.page);
      return QueryDelegatorDelegationsResponse.encode({
        delegationResponses: page.map((val) =>
          delegationResponse(m, del, m.staking.validator(val)!, m.staking.delegation(del, val)!),
        ),
        pagination: pageResponse(res),
      }).finish();
    },
    DelegatorUnbondingDelegations(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_addr' }, 2);
      const del = codec.acc(req.strings.delegator_addr!, EMPTY_DEL);
      const vals = m.staking
        .unbondingPairs()
        .filter(([d]) => bytesEqual(d, del))
        .map(([, v]) => v)
        .sort(compareBytes);
      const { page, res } = paginate(vals, (v) => pageKey(v), req.page);
      return QueryDelegatorUnbondingDelegationsResponse.encode({
        unbondingResponses: page.map((v) => unbonding(m, del, v)),
        pagination: pageResponse(res),
      }).finish();
    },
    Redelegations(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_addr', 2: 'src_validator_addr', 3: 'dst_validator_addr' }, 4);
      const { delegator_addr: delText, src_validator_addr: srcText, dst_validator_addr: dstText } = req.strings;
      const del = delText === '' ? undefined : codec.acc(delText!, EMPTY_DEL);
      const src = srcText === '' ? undefined : codec.val(srcText!, EMPTY_VAL);
      const dst = dstText === '' ? undefined : codec.val(dstText!, EMPTY_VAL);
      // As the SDK: the three addresses name one redelegation; a source alone lists its redelegations; otherwise
      // the delegator's (an empty delegator fails its address check).
      if (del === undefined && !(src !== undefined && dst === undefined))
        throw new InvalidParamsError('empty address string is not allowed');
      const triples = m.staking
        .redelegationTriples()
        .filter(
          ([d, s, t]) =>
            (del === undefined || bytesEqual(d, del)) &&
            (src === undefined || bytesEqual(s, src)) &&
            (dst === undefined || bytesEqual(t, dst)),
        )
        .sort((a, b) => compareBytes(pageKey(...a), pageKey(...b)));
      if (del !== undefined && src !== undefined && dst !== undefined && triples.length === 0)
        throw new NotFoundError(
          `redelegation not found for delegator address ${delText} from validator address ${srcText}`,
        );
      const { page, res } = paginate(triples, (t) => pageKey(...t), req.page);
      return QueryRedelegationsResponse.encode({
        redelegationResponses: page.map(([d, s, t]) => redelegation(m, d, s, t)),
        pagination: pageResponse(res),
      }).finish();
    },
    DelegatorValidators(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_addr' }, 2);
      const del = codec.acc(req.strings.delegator_addr!, EMPTY_DEL);
      const vals = m.staking
        .delegatorValidators(del)
        .map((v) => m.staking.validator(v)!)
        .sort(byOperator);
      const { page, res } = paginate(vals, (v) => pageKey(v.operator), req.page);
      return QueryDelegatorValidatorsResponse.encode({
        validators: page.map((v) => validatorProto(v, codec)),
        pagination: pageResponse(res),
      }).finish();
    },
    DelegatorValidator(data, m) {
      const req = decodeRequest(data, { 1: 'delegator_addr', 2: 'validator_addr' }).strings;
      const del = codec.acc(req.delegator_addr!, EMPTY_DEL);
      const val = codec.val(req.validator_addr!, EMPTY_VAL);
      const v = m.staking.validator(val);
      if (v === undefined) throw new NotFoundError('validator does not exist');
      if (m.staking.delegation(del, val) === undefined)
        throw new NotFoundError('no delegation for (address, validator) tuple');
      return QueryDelegatorValidatorResponse.encode({ validator: validatorProto(v, codec) }).finish();
    },
    Pool(data, m) {
      decodeRequest(data, {});
      const { bonded, notBonded } = m.staking.pool();
      return QueryPoolResponse.encode({
        pool: { notBondedTokens: notBonded.toString(), bondedTokens: bonded.toString() },
      }).finish();
    },
    Params(data, m) {
      decodeRequest(data, {});
      const p = m.env.params;
      return QueryParamsResponse.encode({
        params: {
          unbondingTime: duration(p.unbondingTime),
          maxValidators: p.maxValidators,
          maxEntries: MAX_ENTRIES,
          // No historical info is kept (the HistoricalInfo method is not served).
          historicalEntries: 0,
          bondDenom: p.bondDenom,
          minCommissionRate: p.minCommissionRate.toString(),
        },
      }).finish();
    },
  });
}
