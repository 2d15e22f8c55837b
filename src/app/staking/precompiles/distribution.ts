// The distribution precompile at 0x…0801 with Cosmos EVM's ABI (precompiles/distribution/DistributionI.sol).
import type { AbiValue } from '../../../primitives/abi.ts';
import { DISTRIBUTION_ADDRESS, ModuleError } from '../env.ts';
import { DEC } from '../types.ts';
import { hexAddress, parseAccountAddress, parseValidatorAddress, valoper } from './addresses.ts';
import { buildPrecompile, eventDef, requireCaller, type ChainSettings, type MethodDef } from './method.ts';

const PRECISION = 18n;
const CLAIM = eventDef('ClaimRewards(address indexed,uint256)');
const SET_WITHDRAWER = eventDef('SetWithdrawerAddress(address indexed,string)');
const WITHDRAW_REWARD = eventDef('WithdrawDelegatorReward(address indexed,address indexed,uint256)');
const WITHDRAW_COMMISSION = eventDef('WithdrawValidatorCommission(string indexed,uint256)');
const FUND_POOL = eventDef('FundCommunityPool(address indexed,string,uint256)');
const DEPOSIT = eventDef('DepositValidatorRewardsPool(address indexed,address indexed,string,uint256)');

function decCoins(denom: string, amount: bigint): AbiValue[] {
  return amount === 0n ? [] : [[denom, amount, PRECISION]];
}

/** The bond denom's amount in a Coin[] argument (other denoms are refused: only the EVM denom moves here). */
function bondAmount(coins: AbiValue[], denom: string): bigint {
  let total = 0n;
  for (const c of coins as Array<[string, bigint]>) {
    if (c[0] !== denom) throw new ModuleError(`invalid denom ${c[0]}: only ${denom} is supported`);
    total += c[1];
  }
  return total;
}

/** The methods and their gas. */
export function distributionMethods(): MethodDef[] {
  return [
    {
      name: 'claimRewards',
      inputs: ['address', 'uint32'],
      outputs: ['bool'],
      gas: (args) => 30_000 + 60_000 * Math.max(1, Number(args[1] as bigint)),
      writes: true,
      run({ args, caller, modules, emit }) {
        const [del, max] = args as [Uint8Array, bigint];
        requireCaller(caller, del);
        const vals = modules.staking.delegatorValidators(del);
        if (BigInt(vals.length) > max)
          throw new ModuleError(
            `maxRetrieve (${max}) parameter exceeds the maximum number of validators (${vals.length})`,
          );
        let total = 0n;
        for (const val of vals) total += modules.distribution.withdrawRewards(del, val);
        emit(CLAIM, [del, total]);
        return [true];
      },
    },
    {
      name: 'setWithdrawAddress',
      inputs: ['address', 'string'],
      outputs: ['bool'],
      gas: 30_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const [del, to] = args as [Uint8Array, string];
        requireCaller(caller, del);
        modules.distribution.setWithdrawAddress(del, parseAccountAddress(to, prefix));
        emit(SET_WITHDRAWER, [del, to]);
        return [true];
      },
    },
    {
      name: 'withdrawDelegatorRewards',
      inputs: ['address', 'string'],
      outputs: ['(string,uint256)[]'],
      gas: 80_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const [del, valText] = args as [Uint8Array, string];
        requireCaller(caller, del);
        const val = parseValidatorAddress(valText, prefix);
        const paid = modules.distribution.withdrawRewards(del, val);
        emit(WITHDRAW_REWARD, [del, val, paid]);
        return [paid === 0n ? [] : [[modules.env.params.bondDenom, paid]]];
      },
    },
    {
      name: 'withdrawValidatorCommission',
      inputs: ['string'],
      outputs: ['(string,uint256)[]'],
      gas: 60_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const valText = args[0] as string;
        const val = parseValidatorAddress(valText, prefix);
        requireCaller(caller, val);
        const paid = modules.distribution.withdrawCommission(val);
        emit(WITHDRAW_COMMISSION, [valText, paid]);
        return [[[modules.env.params.bondDenom, paid]]];
      },
    },
    {
      name: 'fundCommunityPool',
      inputs: ['address', '(string,uint256)[]'],
      outputs: ['bool'],
      gas: 50_000,
      writes: true,
      run({ args, caller, modules, emit }) {
        const [depositor, coins] = args as [Uint8Array, AbiValue[]];
        requireCaller(caller, depositor);
        const amount = bondAmount(coins, modules.env.params.bondDenom);
        modules.distribution.fundCommunityPool(depositor, amount);
        emit(FUND_POOL, [depositor, modules.env.params.bondDenom, amount]);
        return [true];
      },
    },
    {
      name: 'depositValidatorRewardsPool',
      inputs: ['address', 'string', '(string,uint256)[]'],
      outputs: ['bool'],
      gas: 60_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const [depositor, valText, coins] = args as [Uint8Array, string, AbiValue[]];
        requireCaller(caller, depositor);
        const val = parseValidatorAddress(valText, prefix);
        const amount = bondAmount(coins, modules.env.params.bondDenom);
        modules.distribution.depositValidatorRewards(depositor, val, amount);
        emit(DEPOSIT, [depositor, val, modules.env.params.bondDenom, amount]);
        return [true];
      },
    },
    {
      name: 'validatorDistributionInfo',
      inputs: ['string'],
      outputs: ['(string,(string,uint256,uint8)[],(string,uint256,uint8)[])'],
      gas: 20_000,
      writes: false,
      run({ args, modules, prefix }) {
        const val = parseValidatorAddress(args[0] as string, prefix);
        modules.staking.mustValidator(val);
        const denom = modules.env.params.bondDenom;
        const self =
          modules.staking.delegation(val, val) === undefined ? 0n : modules.distribution.pendingRewards(val, val);
        return [[hexAddress(val), decCoins(denom, self), decCoins(denom, modules.distribution.commission(val))]];
      },
    },
    {
      name: 'validatorOutstandingRewards',
      inputs: ['string'],
      outputs: ['(string,uint256,uint8)[]'],
      gas: 10_000,
      writes: false,
      run({ args, modules, prefix }) {
        const val = parseValidatorAddress(args[0] as string, prefix);
        modules.staking.mustValidator(val);
        return [decCoins(modules.env.params.bondDenom, modules.distribution.outstanding(val))];
      },
    },
    {
      name: 'validatorCommission',
      inputs: ['string'],
      outputs: ['(string,uint256,uint8)[]'],
      gas: 10_000,
      writes: false,
      run({ args, modules, prefix }) {
        const val = parseValidatorAddress(args[0] as string, prefix);
        modules.staking.mustValidator(val);
        return [decCoins(modules.env.params.bondDenom, modules.distribution.commission(val))];
      },
    },
    {
      name: 'validatorSlashes',
      inputs: ['string', 'uint64', 'uint64', '(bytes,uint64,uint64,bool,bool)'],
      outputs: ['(uint64,(uint256,uint8))[]', '(bytes,uint64)'],
      gas: 20_000,
      writes: false,
      run({ args, modules, prefix }) {
        const [valText, from, to] = args as [string, bigint, bigint];
        const val = parseValidatorAddress(valText, prefix);
        const events = modules.distribution.slashEvents(val).filter((e) => e.height >= from && e.height <= to);
        return [events.map((e) => [e.period, [e.fraction, PRECISION]]), [new Uint8Array(0), BigInt(events.length)]];
      },
    },
    {
      name: 'delegationRewards',
      inputs: ['address', 'string'],
      outputs: ['(string,uint256,uint8)[]'],
      gas: 20_000,
      writes: false,
      run({ args, modules, prefix }) {
        const [del, valText] = args as [Uint8Array, string];
        const val = parseValidatorAddress(valText, prefix);
        return [decCoins(modules.env.params.bondDenom, modules.distribution.pendingRewards(del, val))];
      },
    },
    {
      name: 'delegationTotalRewards',
      inputs: ['address'],
      outputs: ['(string,(string,uint256,uint8)[])[]', '(string,uint256,uint8)[]'],
      gas: 40_000,
      writes: false,
      run({ args, modules, prefix }) {
        const del = args[0] as Uint8Array;
        const denom = modules.env.params.bondDenom;
        let total = 0n;
        const rows = modules.staking.delegatorValidators(del).map((val) => {
          const r = modules.distribution.pendingRewards(del, val);
          total += r;
          return [valoper(val, prefix), decCoins(denom, r)];
        });
        return [rows, decCoins(denom, total)];
      },
    },
    {
      name: 'delegatorValidators',
      inputs: ['address'],
      outputs: ['string[]'],
      gas: 10_000,
      writes: false,
      run({ args, modules, prefix }) {
        return [modules.staking.delegatorValidators(args[0] as Uint8Array).map((v) => valoper(v, prefix))];
      },
    },
    {
      name: 'delegatorWithdrawAddress',
      inputs: ['address'],
      outputs: ['string'],
      gas: 5_000,
      writes: false,
      run({ args, modules }) {
        return [hexAddress(modules.distribution.withdrawAddress(args[0] as Uint8Array))];
      },
    },
    {
      name: 'communityPool',
      inputs: [],
      outputs: ['(string,uint256,uint8)[]'],
      gas: 5_000,
      writes: false,
      run({ modules }) {
        return [decCoins(modules.env.params.bondDenom, modules.distribution.communityPool())];
      },
    },
  ];
}

/** The distribution precompile. */
export function distributionPrecompile(settings: ChainSettings) {
  return buildPrecompile(DISTRIBUTION_ADDRESS, distributionMethods(), settings);
}

/** 1 token as a Dec, for callers converting DecCoin amounts. */
export const ONE = DEC;
