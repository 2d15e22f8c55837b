// The JSON the Cosmos SDK CLI prints for staking, distribution and slashing answers (PrintProto: proto field names,
// defaults emitted, 64-bit integers as strings, enums by name, times in RFC 3339, durations as "600s", an Any with
// its "@type"). Decimals print as LegacyDec's String(): "0.100000000000000000", not their wire form.
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { Duration } from 'cosmjs-types/google/protobuf/duration';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import type { DecCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import type {
  DelegationResponse,
  Params as StakingParams,
  Pool,
  UnbondingDelegation,
  Validator,
} from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import type { Params as SlashingParams, ValidatorSigningInfo } from 'cosmjs-types/cosmos/slashing/v1beta1/slashing';
import type { Params as DistributionParams } from 'cosmjs-types/cosmos/distribution/v1beta1/distribution';

/** A JSON value as the CLI prints it. */
export type Json = null | string | number | boolean | Json[] | { [k: string]: Json };

const DEC_DIGITS = 18;

/** LegacyDec's String() of its wire form (the value scaled by 10^18): "1500000000000000000" → "1.500000000000000000". */
export function decString(scaled: string): string {
  if (scaled === '') return `0.${'0'.repeat(DEC_DIGITS)}`;
  const neg = scaled.startsWith('-');
  const digits = (neg ? scaled.slice(1) : scaled).padStart(DEC_DIGITS + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -DEC_DIGITS)}.${digits.slice(-DEC_DIGITS)}`;
}

/** A Timestamp in RFC 3339 as Go prints it (fraction only when non-zero, trailing zeros dropped). */
export function timeString(t: Timestamp | undefined): string {
  const seconds = t?.seconds ?? 0n;
  const nanos = t?.nanos ?? 0;
  const iso = new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  const frac = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${iso}${frac}Z`;
}

/** A Duration as protobuf JSON writes it ("1814400s", "1.5s"). */
export function durationString(d: Duration | undefined): string {
  const nanos = d?.nanos ?? 0;
  const frac = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${d?.seconds ?? 0n}${frac}s`;
}

/** DecCoins with decimal amounts. */
export function decCoinsJson(coins: readonly DecCoin[]): Json {
  return coins.map((c) => ({ denom: c.denom, amount: decString(c.amount) }));
}

/** A PageResponse (empty next_key is null, as gogoproto's jsonpb writes a nil slice). */
export function pageJson(p: PageResponse | undefined): Json {
  const key = p?.nextKey;
  return {
    next_key: key && key.length > 0 ? Buffer.from(key).toString('base64') : null,
    total: (p?.total ?? 0n).toString(),
  };
}

/** An ed25519 consensus key as the SDK's JSON Any (another type prints its raw value, base64). */
export function pubkeyJson(a: Any | undefined): Json {
  if (a === undefined) return null;
  if (a.typeUrl !== '/cosmos.crypto.ed25519.PubKey')
    return { '@type': a.typeUrl, value: Buffer.from(a.value).toString('base64') };
  return { '@type': a.typeUrl, key: Buffer.from(PubKey.decode(a.value).key).toString('base64') };
}

/** A Validator. */
export function validatorJson(v: Validator): Json {
  const r = v.commission.commissionRates;
  return {
    operator_address: v.operatorAddress,
    consensus_pubkey: pubkeyJson(v.consensusPubkey),
    jailed: v.jailed,
    status: STATUS[v.status] ?? 'BOND_STATUS_UNSPECIFIED',
    tokens: v.tokens,
    delegator_shares: decString(v.delegatorShares),
    description: {
      moniker: v.description.moniker,
      identity: v.description.identity,
      website: v.description.website,
      security_contact: v.description.securityContact,
      details: v.description.details,
    },
    unbonding_height: v.unbondingHeight.toString(),
    unbonding_time: timeString(v.unbondingTime),
    commission: {
      commission_rates: {
        rate: decString(r.rate),
        max_rate: decString(r.maxRate),
        max_change_rate: decString(r.maxChangeRate),
      },
      update_time: timeString(v.commission.updateTime),
    },
    min_self_delegation: v.minSelfDelegation,
    unbonding_on_hold_ref_count: v.unbondingOnHoldRefCount.toString(),
    unbonding_ids: v.unbondingIds.map((id) => id.toString()),
  };
}

const STATUS = ['BOND_STATUS_UNSPECIFIED', 'BOND_STATUS_UNBONDED', 'BOND_STATUS_UNBONDING', 'BOND_STATUS_BONDED'];

/** A DelegationResponse. */
export function delegationJson(d: DelegationResponse): Json {
  return {
    delegation: {
      delegator_address: d.delegation.delegatorAddress,
      validator_address: d.delegation.validatorAddress,
      shares: decString(d.delegation.shares),
    },
    balance: { denom: d.balance.denom, amount: d.balance.amount },
  };
}

/** An UnbondingDelegation. */
export function unbondingJson(u: UnbondingDelegation): Json {
  return {
    delegator_address: u.delegatorAddress,
    validator_address: u.validatorAddress,
    entries: u.entries.map((e) => ({
      creation_height: e.creationHeight.toString(),
      completion_time: timeString(e.completionTime),
      initial_balance: e.initialBalance,
      balance: e.balance,
      unbonding_id: e.unbondingId.toString(),
      unbonding_on_hold_ref_count: e.unbondingOnHoldRefCount.toString(),
    })),
  };
}

/** The staking Pool. */
export function poolJson(p: Pool): Json {
  return { not_bonded_tokens: p.notBondedTokens, bonded_tokens: p.bondedTokens };
}

/** The staking Params. */
export function stakingParamsJson(p: StakingParams): Json {
  return {
    unbonding_time: durationString(p.unbondingTime),
    max_validators: p.maxValidators,
    max_entries: p.maxEntries,
    historical_entries: p.historicalEntries,
    bond_denom: p.bondDenom,
    min_commission_rate: decString(p.minCommissionRate),
  };
}

/** The distribution Params. */
export function distributionParamsJson(p: DistributionParams): Json {
  return {
    community_tax: decString(p.communityTax),
    base_proposer_reward: decString(p.baseProposerReward),
    bonus_proposer_reward: decString(p.bonusProposerReward),
    withdraw_addr_enabled: p.withdrawAddrEnabled,
  };
}

/** A ValidatorSigningInfo. */
export function signingInfoJson(i: ValidatorSigningInfo): Json {
  return {
    address: i.address,
    start_height: i.startHeight.toString(),
    index_offset: i.indexOffset.toString(),
    jailed_until: timeString(i.jailedUntil),
    tombstoned: i.tombstoned,
    missed_blocks_counter: i.missedBlocksCounter.toString(),
  };
}

const text = new TextDecoder();

/** The slashing Params (its Decs travel as the ASCII of the wire form). */
export function slashingParamsJson(p: SlashingParams): Json {
  return {
    signed_blocks_window: p.signedBlocksWindow.toString(),
    min_signed_per_window: decString(text.decode(p.minSignedPerWindow)),
    downtime_jail_duration: durationString(p.downtimeJailDuration),
    slash_fraction_double_sign: decString(text.decode(p.slashFractionDoubleSign)),
    slash_fraction_downtime: decString(text.decode(p.slashFractionDowntime)),
  };
}
