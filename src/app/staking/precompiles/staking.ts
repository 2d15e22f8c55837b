// The staking precompile at 0x…0800 with Cosmos EVM's ABI (precompiles/staking/StakingI.sol in cosmos/evm).
import { STAKING_ADDRESS } from '../env.ts';
import { ModuleError } from '../env.ts';
import { tokensFromShares } from '../staking.ts';
import { BOND_STATUS_NAMES, BondStatus, type Validator } from '../types.ts';
import type { AbiValue } from '../../../primitives/abi.ts';
import { hexAddress, parseValidatorAddress, valoper } from './addresses.ts';
import { buildPrecompile, eventDef, requireCaller, type ChainSettings, type MethodDef } from './method.ts';

const DESCRIPTION = '(string,string,string,string,string)';
const VALIDATOR = `(string,string,bool,uint8,uint256,uint256,${DESCRIPTION},int64,int64,uint256,uint256)`;
const UNBONDING_OUTPUT = '(string,string,(int64,int64,uint256,uint256,uint64,int64)[])';
const REDELEGATION_OUTPUT = '(string,string,string,(int64,int64,uint256,uint256)[])';
const PAGE_REQUEST = '(bytes,uint64,uint64,bool,bool)';
const PAGE_RESPONSE = '(bytes,uint64)';

const CREATE_VALIDATOR = eventDef('CreateValidator(address indexed,uint256)');
const EDIT_VALIDATOR = eventDef('EditValidator(address indexed,int256,int256)');
const DELEGATE = eventDef('Delegate(address indexed,address indexed,uint256,uint256)');
const UNBOND = eventDef('Unbond(address indexed,address indexed,uint256,uint256)');
const REDELEGATE = eventDef('Redelegate(address indexed,address indexed,address indexed,uint256,uint256)');
const CANCEL = eventDef('CancelUnbondingDelegation(address indexed,address indexed,uint256,uint256)');

/** A validator as the precompile's Validator struct. */
export function validatorTuple(v: Validator): AbiValue[] {
  const d = v.description;
  return [
    hexAddress(v.operator),
    Buffer.from(v.consPubkey).toString('base64'),
    v.jailed,
    BigInt(v.status),
    v.tokens,
    v.delegatorShares,
    [d.moniker, d.identity, d.website, d.securityContact, d.details],
    v.unbondingHeight,
    v.unbondingTime,
    v.commission.rate,
    v.minSelfDelegation,
  ];
}

function description(v: AbiValue): Validator['description'] {
  const [moniker, identity, website, securityContact, details] = v as string[];
  return {
    moniker: moniker!,
    identity: identity!,
    website: website!,
    securityContact: securityContact!,
    details: details!,
  };
}

function consPubkey(text: string): Uint8Array {
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32 || key.toString('base64') !== text)
    throw new ModuleError('consensus pubkey must be the base64 of a 32-byte ed25519 public key');
  return Uint8Array.from(key);
}

const MAX_INT64 = (1n << 63n) - 1n;

/** The methods and their gas (see the README's precompile table). */
export function stakingMethods(): MethodDef[] {
  return [
    {
      name: 'createValidator',
      inputs: [DESCRIPTION, '(uint256,uint256,uint256)', 'uint256', 'address', 'string', 'uint256'],
      outputs: ['bool'],
      gas: 200_000,
      writes: true,
      run({ args, caller, modules, emit }) {
        const [desc, rates, minSelf, operator, pubkey, value] = args as [
          AbiValue,
          bigint[],
          bigint,
          Uint8Array,
          string,
          bigint,
        ];
        requireCaller(caller, operator);
        modules.staking.createValidator({
          operator,
          consPubkey: consPubkey(pubkey),
          description: description(desc),
          commission: { rate: rates[0]!, maxRate: rates[1]!, maxChangeRate: rates[2]! },
          minSelfDelegation: minSelf,
          amount: value,
        });
        emit(CREATE_VALIDATOR, [operator, value]);
        return [true];
      },
    },
    {
      name: 'editValidator',
      inputs: [DESCRIPTION, 'address', 'int256', 'int256'],
      outputs: ['bool'],
      gas: 60_000,
      writes: true,
      run({ args, caller, modules, emit }) {
        const [desc, operator, rate, minSelf] = args as [AbiValue, Uint8Array, bigint, bigint];
        requireCaller(caller, operator);
        if (rate < -1n || minSelf < -1n)
          throw new ModuleError('commission rate and min self delegation must be -1 or positive');
        modules.staking.editValidator(
          operator,
          description(desc),
          rate === -1n ? undefined : rate,
          minSelf === -1n ? undefined : minSelf,
        );
        emit(EDIT_VALIDATOR, [operator, rate, minSelf]);
        return [true];
      },
    },
    {
      name: 'delegate',
      inputs: ['address', 'string', 'uint256'],
      outputs: ['bool'],
      gas: 120_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const [del, valText, amount] = args as [Uint8Array, string, bigint];
        requireCaller(caller, del);
        const val = parseValidatorAddress(valText, prefix);
        const shares = modules.staking.delegate(del, val, amount);
        emit(DELEGATE, [del, val, amount, shares]);
        return [true];
      },
    },
    {
      name: 'undelegate',
      inputs: ['address', 'string', 'uint256'],
      outputs: ['int64'],
      gas: 120_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const [del, valText, amount] = args as [Uint8Array, string, bigint];
        requireCaller(caller, del);
        const val = parseValidatorAddress(valText, prefix);
        const out = modules.staking.undelegate(del, val, amount);
        emit(UNBOND, [del, val, out.amount, out.completionTime]);
        return [out.completionTime];
      },
    },
    {
      name: 'redelegate',
      inputs: ['address', 'string', 'string', 'uint256'],
      outputs: ['int64'],
      gas: 160_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const [del, srcText, dstText, amount] = args as [Uint8Array, string, string, bigint];
        requireCaller(caller, del);
        const src = parseValidatorAddress(srcText, prefix);
        const dst = parseValidatorAddress(dstText, prefix);
        const completion = modules.staking.redelegate(del, src, dst, amount);
        emit(REDELEGATE, [del, src, dst, amount, completion]);
        return [completion];
      },
    },
    {
      name: 'cancelUnbondingDelegation',
      inputs: ['address', 'string', 'uint256', 'uint256'],
      outputs: ['bool'],
      gas: 120_000,
      writes: true,
      run({ args, caller, modules, emit, prefix }) {
        const [del, valText, amount, height] = args as [Uint8Array, string, bigint, bigint];
        requireCaller(caller, del);
        const val = parseValidatorAddress(valText, prefix);
        modules.staking.cancelUnbonding(del, val, amount, height);
        emit(CANCEL, [del, val, amount, height]);
        return [true];
      },
    },
    {
      name: 'delegation',
      inputs: ['address', 'string'],
      outputs: ['uint256', '(string,uint256)'],
      gas: 10_000,
      writes: false,
      run({ args, modules, prefix }) {
        const [del, valText] = args as [Uint8Array, string];
        const v = modules.staking.mustValidator(parseValidatorAddress(valText, prefix));
        const shares = modules.staking.delegation(del, v.operator) ?? 0n;
        return [shares, [modules.env.params.bondDenom, tokensFromShares(v, shares)]];
      },
    },
    {
      name: 'unbondingDelegation',
      inputs: ['address', 'string'],
      outputs: [UNBONDING_OUTPUT],
      gas: 10_000,
      writes: false,
      run({ args, modules, prefix }) {
        const [del, valText] = args as [Uint8Array, string];
        const val = parseValidatorAddress(valText, prefix);
        const entries = modules.staking.unbondingEntries(del, val);
        if (entries.length === 0) return [['', '', []]];
        return [
          [
            hexAddress(del),
            valoper(val, prefix),
            entries.map((e) => [e.creationHeight, e.completionTime, e.initialBalance, e.balance, e.id, 0n]),
          ],
        ];
      },
    },
    {
      name: 'validator',
      inputs: ['address'],
      outputs: [VALIDATOR],
      gas: 10_000,
      writes: false,
      run({ args, modules }) {
        const v = modules.staking.validator(args[0] as Uint8Array);
        if (v === undefined) return [['', '', false, 0n, 0n, 0n, ['', '', '', '', ''], 0n, 0n, 0n, 0n]];
        return [validatorTuple(v)];
      },
    },
    {
      name: 'validators',
      inputs: ['string', PAGE_REQUEST],
      outputs: [`${VALIDATOR}[]`, PAGE_RESPONSE],
      gas: 30_000,
      writes: false,
      run({ args, modules }) {
        const [status, page] = args as [string, AbiValue[]];
        const wanted = status === '' ? undefined : BOND_STATUS_NAMES.indexOf(status);
        if (wanted === -1) throw new ModuleError(`invalid validator status ${status}`);
        const all = modules.staking
          .allValidatorList()
          .filter((v) => wanted === undefined || v.status === (wanted as BondStatus));
        const offset = Number(page[1] as bigint);
        const limit = Number(page[2] as bigint) || 100;
        const slice = all.slice(offset, offset + limit);
        const total = page[3] === true ? BigInt(all.length) : 0n;
        return [slice.map(validatorTuple), [new Uint8Array(0), total]];
      },
    },
    {
      name: 'redelegation',
      inputs: ['address', 'string', 'string'],
      outputs: [REDELEGATION_OUTPUT],
      gas: 10_000,
      writes: false,
      run({ args, modules, prefix }) {
        const [del, srcText, dstText] = args as [Uint8Array, string, string];
        const src = parseValidatorAddress(srcText, prefix);
        const dst = parseValidatorAddress(dstText, prefix);
        const entries = modules.staking.redelegationEntries(del, src, dst);
        if (entries.length === 0) return [['', '', '', []]];
        return [
          [
            hexAddress(del),
            valoper(src, prefix),
            valoper(dst, prefix),
            entries.map((e) => [
              e.creationHeight,
              e.completionTime < MAX_INT64 ? e.completionTime : MAX_INT64,
              e.initialBalance,
              e.sharesDst,
            ]),
          ],
        ];
      },
    },
  ];
}

/** The staking precompile. */
export function stakingPrecompile(settings: ChainSettings) {
  return buildPrecompile(STAKING_ADDRESS, stakingMethods(), settings);
}
