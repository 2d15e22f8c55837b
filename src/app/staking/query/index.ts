// The three Cosmos query services of the staking modules, over the state each queried block committed.
import type { Genesis } from '../../genesis.ts';
import type { StateDb } from '../../state/stateDb.ts';
import { Modules } from '../modules.ts';
import { scratchState } from '../views.ts';
import type { ModuleQueries, ModulesAt } from './common.ts';
import { distributionQueries } from './distribution.ts';
import { slashingQueries } from './slashing.ts';
import { stakingQueries } from './staking.ts';

/** cosmos.staking, cosmos.distribution and cosmos.slashing v1beta1 Query, reading the chain's state at a block. */
export function stakingQueryModules(state: StateDb, genesis: Genesis): ModuleQueries[] {
  const at: ModulesAt = (block) =>
    Modules.over(
      scratchState(state.readView(block.header.stateRoot)),
      genesis.modules.params,
      block.number,
      block.header.timestamp,
    );
  return [
    stakingQueries(at, genesis.prefix),
    distributionQueries(at, genesis.prefix),
    slashingQueries(at, genesis.prefix),
  ];
}
