// The modules inside a block: begin- and end-block work on the block's WorldState (so it is in the block's state
// root like its transactions), and genesis written on the state block 0 starts from.
import type { WorldState } from '../../evm/index.ts';
import { worldHost } from '../../evm/host.ts';
import type { BlockHooks } from '../evm/executor.ts';
import type { ConsensusInfo } from './modules.ts';
import { Modules } from './modules.ts';
import type { ModuleState } from './env.ts';
import { consAddressOf, type ValidatorUpdate } from './staking.ts';
import type { ModulesGenesis } from './genesis.ts';
import type { StakingParams } from './types.ts';

/** A ModuleState over a WorldState outside any transaction (begin/end block, genesis). */
export function moduleStateOf(world: WorldState): ModuleState {
  const host = worldHost(world, []);
  return {
    get: (a, s) => host.storage(a, s),
    set: (a, s, v) => host.setStorage(a, s, v),
    balance: (a) => host.balance(a),
    setBalance: (a, v) => host.setBalance(a, v),
  };
}

/**
 * The block's module work. Without consensus information (solo mode) every validator of the last set counts as
 * having signed the last block: the embedded engine is the whole validator set.
 */
export function blockHooks(
  params: StakingParams,
  height: bigint,
  time: bigint,
  info: ConsensusInfo | undefined,
  elapsed: bigint,
): BlockHooks {
  const over = (world: WorldState): Modules => {
    world.beginTx(0n);
    return Modules.over(moduleStateOf(world), params, height, time);
  };
  return {
    begin(world) {
      const m = over(world);
      const votes =
        info?.votes ??
        m.staking.lastValidatorPowers().map(([op, power]) => ({
          consAddress: consAddressOf(m.staking.validator(op)!.consPubkey),
          power,
          signed: true,
        }));
      m.beginBlock({ votes, misbehavior: info?.misbehavior ?? [], elapsed: info?.elapsed ?? elapsed });
      world.finalizeTx();
    },
    end(world): ValidatorUpdate[] {
      const updates = over(world).endBlock();
      world.finalizeTx();
      return updates;
    },
  };
}

/** Writes the modules' genesis on `world`; returns the genesis validator set. */
export function initModulesGenesis(world: WorldState, g: ModulesGenesis, time: bigint): ValidatorUpdate[] {
  world.beginTx(0n);
  const updates = Modules.over(moduleStateOf(world), g.params, 0n, time).initGenesis(g.validators);
  world.finalizeTx();
  return updates;
}
