// The starter of each node the bench knows.
import { startAnvil } from './anvil.ts';
import { startGanache } from './ganache.ts';
import { startHardhat } from './hardhat.ts';
import { startKestrel } from './kestrel.ts';
import type { NodeName, NodeStarter } from './types.ts';

/** How to start each node. */
export const STARTERS: Record<NodeName, NodeStarter> = {
  kestrel: startKestrel,
  anvil: () => startAnvil(),
  'anvil-prune': () => startAnvil(['--prune-history'], 'anvil-prune'),
  hardhat: startHardhat,
  ganache: startGanache,
};
