// The modules' part of genesis.json: app_state.staking (params and the genesis validators with their
// self-delegations), app_state.slashing.params, app_state.distribution.params and app_state.mint.params, in the
// Cosmos SDK's JSON shapes (decimals as "0.05", durations as "600s").
import { fromBech32 } from '../../primitives/bech32.ts';
import { BondStatus, DEC, defaultParams, type StakingParams, type Validator } from './types.ts';

/** A genesis validator and the tokens it self-delegates (minted into the not-bonded pool at genesis). */
export interface GenesisValidator {
  validator: Validator;
  selfDelegation: bigint;
}

/** The modules' genesis. */
export interface ModulesGenesis {
  params: StakingParams;
  validators: GenesisValidator[];
}

type Json = Record<string, unknown> | undefined;

/** Parses a Cosmos decimal string ("0.05") into a LegacyDec. */
export function parseDec(text: unknown, what: string): bigint {
  if (typeof text !== 'string' || !/^\d+(\.\d{1,18})?$/.test(text))
    throw new Error(`genesis: ${what} must be a decimal string like "0.05", got ${JSON.stringify(text)}`);
  const [whole, frac = ''] = text.split('.');
  return BigInt(whole!) * DEC + BigInt(frac.padEnd(18, '0'));
}

/** Parses a duration ("600s", "1h", "21d" or a number of seconds) into seconds. */
export function parseSeconds(text: unknown, what: string): bigint {
  if (typeof text === 'number' && Number.isInteger(text) && text >= 0) return BigInt(text);
  const m = typeof text === 'string' ? /^(\d+)(s|m|h|d)?$/.exec(text) : null;
  if (!m) throw new Error(`genesis: ${what} must be a duration like "600s", got ${JSON.stringify(text)}`);
  const mult = { s: 1n, m: 60n, h: 3600n, d: 86400n }[(m[2] ?? 's') as 's'];
  return BigInt(m[1]!) * mult;
}

function uint(text: unknown, what: string): bigint {
  if (typeof text === 'number' && Number.isInteger(text) && text >= 0) return BigInt(text);
  if (typeof text !== 'string' || !/^\d+$/.test(text))
    throw new Error(`genesis: ${what} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return BigInt(text);
}

function address(text: unknown, prefix: string, what: string): Uint8Array {
  if (typeof text !== 'string') throw new Error(`genesis: ${what} missing`);
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return Uint8Array.from(Buffer.from(text.slice(2), 'hex'));
  for (const p of [prefix, `${prefix}valoper`]) {
    try {
      return fromBech32(text, p);
    } catch {
      // try the next form
    }
  }
  throw new Error(`genesis: ${what} "${text}" is neither 0x-hex nor a ${prefix}/${prefix}valoper bech32 address`);
}

/** Reads the modules' genesis from app_state (every part optional; defaults are the Cosmos SDK's). */
export function parseModulesGenesis(
  appState: Record<string, unknown>,
  evmDenom: string,
  prefix: string,
): ModulesGenesis {
  const params = defaultParams(evmDenom);
  const staking = appState.staking as Json;
  const sp = staking?.params as Json;
  if (sp?.bond_denom !== undefined && sp.bond_denom !== evmDenom)
    throw new Error(
      `genesis: staking bond_denom must be the EVM denom ${evmDenom}, got ${JSON.stringify(sp.bond_denom)}`,
    );
  if (sp?.unbonding_time !== undefined)
    params.unbondingTime = parseSeconds(sp.unbonding_time, 'staking.params.unbonding_time');
  if (sp?.max_validators !== undefined)
    params.maxValidators = Number(uint(sp.max_validators, 'staking.params.max_validators'));
  if (sp?.min_self_delegation !== undefined)
    params.minSelfDelegation = uint(sp.min_self_delegation, 'staking.params.min_self_delegation');
  if (sp?.min_commission_rate !== undefined)
    params.minCommissionRate = parseDec(sp.min_commission_rate, 'staking.params.min_commission_rate');
  const sl = (appState.slashing as Json)?.params as Json;
  if (sl?.signed_blocks_window !== undefined)
    params.signedBlocksWindow = uint(sl.signed_blocks_window, 'slashing.params.signed_blocks_window');
  if (sl?.min_signed_per_window !== undefined)
    params.minSignedPerWindow = parseDec(sl.min_signed_per_window, 'slashing.params.min_signed_per_window');
  if (sl?.downtime_jail_duration !== undefined)
    params.downtimeJailDuration = parseSeconds(sl.downtime_jail_duration, 'slashing.params.downtime_jail_duration');
  if (sl?.slash_fraction_double_sign !== undefined)
    params.slashFractionDoubleSign = parseDec(
      sl.slash_fraction_double_sign,
      'slashing.params.slash_fraction_double_sign',
    );
  if (sl?.slash_fraction_downtime !== undefined)
    params.slashFractionDowntime = parseDec(sl.slash_fraction_downtime, 'slashing.params.slash_fraction_downtime');
  if (params.signedBlocksWindow <= 0n)
    throw new Error('genesis: slashing.params.signed_blocks_window must be positive');
  const dp = (appState.distribution as Json)?.params as Json;
  if (dp?.community_tax !== undefined)
    params.communityTax = parseDec(dp.community_tax, 'distribution.params.community_tax');
  const mp = (appState.mint as Json)?.params as Json;
  if (mp?.inflation_rate !== undefined)
    params.inflationRate = parseDec(mp.inflation_rate, 'mint.params.inflation_rate');
  for (const [name, d] of [
    ['min_signed_per_window', params.minSignedPerWindow],
    ['slash_fraction_double_sign', params.slashFractionDoubleSign],
    ['slash_fraction_downtime', params.slashFractionDowntime],
    ['community_tax', params.communityTax],
  ] as const) {
    if (d > DEC) throw new Error(`genesis: ${name} must be at most 1`);
  }
  const validators: GenesisValidator[] = [];
  const list = (staking?.validators ?? []) as Array<Record<string, unknown>>;
  if (!Array.isArray(list)) throw new Error('genesis: app_state.staking.validators must be a list');
  const seen = new Set<string>();
  for (const [i, g] of list.entries()) {
    const operator = address(g.operator_address ?? g.operator, prefix, `staking.validators[${i}].operator_address`);
    const key = Buffer.from(String(g.consensus_pubkey ?? ''), 'base64');
    if (key.length !== 32)
      throw new Error(`genesis: staking.validators[${i}].consensus_pubkey must be a base64 ed25519 key`);
    const id = Buffer.from(operator).toString('hex');
    if (seen.has(id) || seen.has(key.toString('hex')))
      throw new Error(`genesis: staking.validators[${i}] repeats an operator or key`);
    seen.add(id);
    seen.add(key.toString('hex'));
    const selfDelegation = uint(g.self_delegation, `staking.validators[${i}].self_delegation`);
    if (selfDelegation === 0n) throw new Error(`genesis: staking.validators[${i}].self_delegation must be positive`);
    const rate =
      g.commission_rate === undefined
        ? DEC / 10n
        : parseDec(g.commission_rate, `staking.validators[${i}].commission_rate`);
    validators.push({
      selfDelegation,
      validator: {
        operator,
        consPubkey: Uint8Array.from(key),
        jailed: false,
        status: BondStatus.Unbonded,
        tokens: 0n,
        delegatorShares: 0n,
        description: {
          moniker: String(g.moniker ?? `validator-${i}`),
          identity: '',
          website: '',
          securityContact: '',
          details: '',
        },
        unbondingHeight: 0n,
        unbondingTime: 0n,
        commission: { rate, maxRate: rate > DEC / 5n ? rate : DEC / 5n, maxChangeRate: DEC / 100n, updateTime: 0n },
        minSelfDelegation: 1n,
      },
    });
  }
  // Fees go to the stakers when genesis says so, or by default on a chain with genesis validators.
  params.distributeFees = typeof dp?.distribute_fees === 'boolean' ? dp.distribute_fees : validators.length > 0;
  return { params, validators };
}
