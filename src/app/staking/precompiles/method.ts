// How the modules' precompiles are built: a table of methods by selector, each with its ABI, its gas and whether
// it writes; one dispatcher that refuses DELEGATECALL/CALLCODE, writes under STATICCALL, value and bad calldata
// with clear revert reasons, and turns a module's refusal into a revert (its writes undone by the engine).
import type { PrecompileCall, PrecompileOutcome, StatefulPrecompile } from '../../../evm/index.ts';
import { addressToBytes } from '../../../primitives/bytes.ts';
import {
  abiDecode,
  abiEncode,
  AbiError,
  encodeRevertReason,
  eventTopic,
  parseType,
  selectorOf,
  type AbiType,
  type AbiValue,
} from '../../../primitives/abi.ts';
import { bytesToBigint, bareHex } from '../../../primitives/hex.ts';
import { ModuleError, type ModuleState } from '../env.ts';
import { Modules } from '../modules.ts';
import type { StakingParams } from '../types.ts';

/** What a method's handler gets. */
export interface MethodContext {
  args: AbiValue[];
  caller: Uint8Array;
  modules: Modules;
  /** Emits one of the precompile's events. */
  emit(event: EventDef, values: AbiValue[]): void;
  prefix: string;
}

/** A method of a precompile. */
export interface MethodDef {
  name: string;
  inputs: string[];
  outputs: string[];
  /** Gas charged for a call (flat: the table in the README). */
  gas: number | ((args: AbiValue[]) => number);
  writes: boolean;
  run(ctx: MethodContext): AbiValue[];
}

/** An event of a precompile: which inputs are indexed. */
export interface EventDef {
  name: string;
  inputs: Array<{ type: string; indexed: boolean }>;
}

interface Compiled extends MethodDef {
  inTypes: AbiType[];
  outTypes: AbiType[];
}

/** An event from its Solidity signature without names, e.g. 'Delegate(address indexed,address indexed,uint256)'. */
export function eventDef(signature: string): EventDef {
  const m = /^(\w+)\((.*)\)$/.exec(signature);
  if (m === null) throw new Error(`bad event signature ${signature}`);
  const inputs =
    m[2] === ''
      ? []
      : splitTop(m[2]!).map((p) => {
          const indexed = p.endsWith(' indexed');
          return { type: indexed ? p.slice(0, -' indexed'.length) : p, indexed };
        });
  return { name: m[1]!, inputs };
}

/** Splits a parameter list at its top-level commas (tuples keep theirs). */
function splitTop(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '(') depth++;
    else if (list[i] === ')') depth--;
    else if (list[i] === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out;
}

/** Chain settings the precompiles need. */
export interface ChainSettings {
  params: StakingParams;
  /** bech32 account prefix (valoper addresses add "valoper"). */
  prefix: string;
}

function revert(message: string, gasUsed: bigint): PrecompileOutcome {
  return { status: 'revert', output: encodeRevertReason(message), gasUsed };
}

/** Builds a stateful precompile at `address` from its method table. */
export function buildPrecompile(address: bigint, methods: MethodDef[], settings: ChainSettings): StatefulPrecompile {
  const table = new Map<string, Compiled>();
  for (const m of methods) {
    const inTypes = m.inputs.map(parseType);
    table.set(bareHex(selectorOf(m.name, inTypes)), { ...m, inTypes, outTypes: m.outputs.map(parseType) });
  }
  return {
    stateful: true,
    call(c: PrecompileCall): PrecompileOutcome {
      if (c.input.length < 4) return revert('invalid method: calldata shorter than a selector', 0n);
      const m = table.get(bareHex(c.input.subarray(0, 4)));
      if (m === undefined) return revert(`unknown method selector 0x${bareHex(c.input.subarray(0, 4))}`, 0n);
      let args: AbiValue[];
      try {
        args = abiDecode(m.inTypes, c.input.subarray(4));
      } catch (e) {
        return revert(`invalid arguments for ${m.name}: ${(e as Error).message}`, 0n);
      }
      const gas = BigInt(typeof m.gas === 'number' ? m.gas : m.gas(args));
      if (gas > c.gas) return { status: 'failure' };
      if (c.kind === 'DELEGATECALL' || c.kind === 'CALLCODE')
        return revert(`${m.name}: the precompile cannot be reached with ${c.kind}`, gas);
      if (m.writes && c.isStatic) return revert(`${m.name}: write protection (static call)`, gas);
      if (c.value !== 0n) return revert(`${m.name}: the precompile does not accept value`, gas);
      const host: ModuleState = {
        get: (a, s) => c.host.storage(a, s),
        set: (a, s, v) => c.host.setStorage(a, s, v),
        balance: (a) => c.host.balance(a),
        setBalance: (a, v) => c.host.setBalance(a, v),
      };
      // A view computes on a scratch copy (rewards end a period, as the SDK's query does on a cache context).
      const state = m.writes ? host : scratch(host);
      const modules = Modules.over(state, settings.params, c.block.number, c.block.timestamp);
      const emit = (ev: EventDef, values: AbiValue[]): void => {
        const topics = [
          bytesToBigint(
            eventTopic(
              ev.name,
              ev.inputs.map((i) => parseType(i.type)),
            ),
          ),
        ];
        const dataTypes: AbiType[] = [];
        const data: AbiValue[] = [];
        ev.inputs.forEach((inp, i) => {
          if (inp.indexed) topics.push(bytesToBigint(abiEncode([parseType(inp.type)], [values[i]!])));
          else {
            dataTypes.push(parseType(inp.type));
            data.push(values[i]!);
          }
        });
        c.host.log(address, topics, abiEncode(dataTypes, data));
      };
      try {
        const out = m.run({ args, caller: addressToBytes(c.caller), modules, emit, prefix: settings.prefix });
        return { status: 'success', output: abiEncode(m.outTypes, out), gasUsed: gas };
      } catch (e) {
        if (e instanceof ModuleError || e instanceof AbiError) return revert(e.message, gas);
        throw e;
      }
    },
  };
}

/** A ModuleState whose writes stay in memory over `base` (dropped with it). */
export function scratch(base: ModuleState): ModuleState {
  const slots = new Map<string, bigint>();
  const balances = new Map<bigint, bigint>();
  return {
    get: (a, s) => slots.get(`${a}:${s}`) ?? base.get(a, s),
    set: (a, s, v) => void slots.set(`${a}:${s}`, v),
    balance: (a) => balances.get(a) ?? base.balance(a),
    setBalance: (a, v) => void balances.set(a, v),
  };
}

/** Refuses an operation on another account's behalf: no one moves another account's stake. */
export function requireCaller(caller: Uint8Array, requester: Uint8Array): void {
  if (bareHex(caller) !== bareHex(requester)) {
    throw new ModuleError(
      `msg.sender address 0x${bareHex(caller)} does not match the requester address 0x${bareHex(requester)}`,
    );
  }
}
