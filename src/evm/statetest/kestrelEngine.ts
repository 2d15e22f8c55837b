// Kestrel's own engine as the state-test runner drives it: a fresh WorldState per tx, Ethereum's fee rules.
import { blobBaseFee, executeTransaction, initEngine, WorldState } from '../index.ts';
import type { StateTestEngine } from './engine.ts';

/** Kestrel's engine with pure Ethereum rules (base fee burned), as the state tests require. */
export const kestrelEngine: StateTestEngine = {
  init: initEngine,
  blobBaseFee,
  execute(reader, block, tx, fork) {
    const world = new WorldState(reader);
    const outcome = executeTransaction(world, block, tx, { fork, rules: { burnBaseFee: true } });
    return { outcome, diff: outcome.ok ? world.diff() : [] };
  },
};
