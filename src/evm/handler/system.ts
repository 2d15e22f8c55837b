// Block-level system calls: EIP-4788 (beacon block root, Cancun) and EIP-2935 (history storage, Prague). The
// caller is SYSTEM_ADDRESS with 30M gas, no fee, no nonce, no value; nothing is charged or refunded.
import type { Address, BlockEnv, Fork, Precompile, TxResult } from '../types.ts';
import type { WorldState } from '../state/world.ts';
import { statefulAddresses } from '../host.ts';
import { EMPTY_BYTES } from '../../primitives/bytes.ts';
import { forkRules } from '../forks.ts';
import { execCall } from '../frame.ts';
import { analysisCache } from '../interpreter/analysis.ts';
import { Evm, isSuccess, K_CALL, STATUS_NAMES } from '../interpreter/context.ts';

/** 0xfffffffffffffffffffffffffffffffffffffffe. */
export const SYSTEM_ADDRESS: Address = 0xfffffffffffffffffffffffffffffffffffffffen;
/** EIP-4788's beacon roots contract. */
export const BEACON_ROOTS_ADDRESS: Address = 0x000f3df6d732807ef1319fb7b8bb8522d0beac02n;
/** EIP-2935's history storage contract. */
export const HISTORY_STORAGE_ADDRESS: Address = 0x0000f90827f1c53a10cb7a02335b175320002935n;
const SYSTEM_CALL_GAS = 30_000_000;

/** Calls `to` as the system; a missing contract is a successful no-op. */
export function runSystemCall(
  world: WorldState,
  block: BlockEnv,
  to: Address,
  input: Uint8Array,
  fork: Fork,
  precompiles: ReadonlyMap<Address, Precompile>,
): TxResult {
  const rules = forkRules(fork);
  world.beginTx(rules.lastPrecompile, rules.extraPrecompile, statefulAddresses(precompiles));
  const ev = new Evm(world, block, fork, undefined, precompiles, SYSTEM_ADDRESS, 0n, []);
  const target = world.account(to);
  const f = ev.frame(0);
  f.kind = K_CALL;
  f.caller = SYSTEM_ADDRESS;
  f.address = to;
  f.codeAddress = to;
  f.value = 0n;
  f.isStatic = false;
  f.input = input;
  f.gas = SYSTEM_CALL_GAS;
  f.code = world.code(target);
  f.analysis = f.code.length === 0 ? undefined : analysisCache.get(target.codeHash, f.code);
  if (f.code.length === 0) {
    world.finalizeTx();
    ev.release();
    return { status: 'success', gasUsed: 0n, gasRefund: 0n, output: EMPTY_BYTES, logs: [] };
  }
  execCall(ev, f, false, undefined);
  world.finalizeTx();
  const ok = isSuccess(f.status);
  const result: TxResult = {
    status: STATUS_NAMES[f.status]!,
    gasUsed: BigInt(SYSTEM_CALL_GAS - f.gas),
    gasRefund: 0n,
    output: f.output,
    logs: ok ? ev.logs : [],
  };
  ev.release();
  return result;
}
