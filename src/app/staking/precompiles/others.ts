// The bank (0x…0804), bech32 (0x…0400) and slashing (0x…0806) precompiles with Cosmos EVM's ABIs.
import { fromBech32, toBech32 } from '../../../primitives/bech32.ts';
import { bech32 } from 'bech32';
import { BANK_ADDRESS, BECH32_ADDRESS, ModuleError, SLASHING_ADDRESS, supplyDelta } from '../env.ts';
import type { SigningInfo } from '../types.ts';
import { buildPrecompile, eventDef, requireCaller, type ChainSettings, type MethodDef } from './method.ts';

const UNJAILED = eventDef('ValidatorUnjailed(address indexed)');
const SIGNING_INFO = '(address,int64,int64,int64,bool,int64)';

function infoTuple(i: SigningInfo) {
  return [i.address, i.startHeight, i.indexOffset, i.jailedUntil, i.tombstoned, i.missedBlocksCounter];
}

/** The slashing precompile's methods and their gas. */
export function slashingMethods(): MethodDef[] {
  return [
    {
      name: 'unjail',
      inputs: ['address'],
      outputs: ['bool'],
      gas: 60_000,
      writes: true,
      run({ args, caller, modules, emit }) {
        const operator = args[0] as Uint8Array;
        requireCaller(caller, operator);
        modules.slashing.unjail(operator);
        emit(UNJAILED, [operator]);
        return [true];
      },
    },
    {
      name: 'getSigningInfo',
      inputs: ['address'],
      outputs: [SIGNING_INFO],
      gas: 10_000,
      writes: false,
      run({ args, modules }) {
        const consAddr = args[0] as Uint8Array;
        const i = modules.slashing.signingInfo(consAddr);
        if (i === undefined)
          throw new ModuleError(`no signing info found for address 0x${Buffer.from(consAddr).toString('hex')}`);
        return [infoTuple(i)];
      },
    },
    {
      name: 'getSigningInfos',
      inputs: ['(bytes,uint64,uint64,bool,bool)'],
      outputs: [`${SIGNING_INFO}[]`, '(bytes,uint64)'],
      gas: 30_000,
      writes: false,
      run({ args, modules }) {
        const page = args[0] as [Uint8Array, bigint, bigint, boolean, boolean];
        const all = modules.slashing.signingInfos();
        const offset = Number(page[1]);
        const limit = Number(page[2]) || 100;
        return [
          all.slice(offset, offset + limit).map(infoTuple),
          [new Uint8Array(0), page[3] ? BigInt(all.length) : 0n],
        ];
      },
    },
    {
      name: 'getParams',
      inputs: [],
      outputs: ['(int64,(uint256,uint8),int64,(uint256,uint8),(uint256,uint8))'],
      gas: 5_000,
      writes: false,
      run({ modules }) {
        const p = modules.env.params;
        return [
          [
            p.signedBlocksWindow,
            [p.minSignedPerWindow, 18n],
            p.downtimeJailDuration,
            [p.slashFractionDoubleSign, 18n],
            [p.slashFractionDowntime, 18n],
          ],
        ];
      },
    },
  ];
}

/** The slashing precompile. */
export function slashingPrecompile(settings: ChainSettings) {
  return buildPrecompile(SLASHING_ADDRESS, slashingMethods(), settings);
}

/** The bank precompile: the EVM denom is the native coin (its "contract address" is the zero address). */
export function bankPrecompile(settings: ChainSettings, genesisSupply: bigint) {
  const ZERO = new Uint8Array(20);
  const methods: MethodDef[] = [
    {
      name: 'balances',
      inputs: ['address'],
      outputs: ['(address,uint256)[]'],
      gas: 5_000,
      writes: false,
      run({ args, modules }) {
        const bal = modules.env.state.balance(BigInt('0x' + Buffer.from(args[0] as Uint8Array).toString('hex')));
        return [bal === 0n ? [] : [[ZERO, bal]]];
      },
    },
    {
      name: 'totalSupply',
      inputs: [],
      outputs: ['(address,uint256)[]'],
      gas: 5_000,
      writes: false,
      run({ modules }) {
        return [[[ZERO, genesisSupply + supplyDelta(modules.env.state)]]];
      },
    },
    {
      name: 'supplyOf',
      inputs: ['address'],
      outputs: ['uint256'],
      gas: 3_000,
      writes: false,
      run({ args, modules }) {
        const a = args[0] as Uint8Array;
        return [a.every((b) => b === 0) ? genesisSupply + supplyDelta(modules.env.state) : 0n];
      },
    },
  ];
  return buildPrecompile(BANK_ADDRESS, methods, settings);
}

/** The bech32 precompile: address ↔ bech32 with any prefix. */
export function bech32Precompile(settings: ChainSettings) {
  const methods: MethodDef[] = [
    {
      name: 'hexToBech32',
      inputs: ['address', 'string'],
      outputs: ['string'],
      gas: 6_000,
      writes: false,
      run({ args }) {
        const [addr, prefix] = args as [Uint8Array, string];
        if (prefix.trim() === '')
          throw new ModuleError(
            'invalid bech32 human readable prefix (HRP). Please provide a either an account, validator or consensus address prefix (eg: cosmos, cosmosvaloper, cosmosvalcons)',
          );
        return [toBech32(addr, prefix)];
      },
    },
    {
      name: 'bech32ToHex',
      inputs: ['string'],
      outputs: ['address'],
      gas: 6_000,
      writes: false,
      run({ args }) {
        const text = args[0] as string;
        let prefix: string;
        try {
          prefix = bech32.decode(text).prefix;
        } catch (e) {
          throw new ModuleError(`invalid bech32 address: ${(e as Error).message}`);
        }
        try {
          return [fromBech32(text, prefix)];
        } catch (e) {
          throw new ModuleError((e as Error).message);
        }
      },
    },
  ];
  return buildPrecompile(BECH32_ADDRESS, methods, settings);
}
