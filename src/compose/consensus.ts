// The consensus seam: how blocks get made. `solo` runs the embedded engine and serves the CometBFT-style RPC
// itself; `cometbft` serves ABCI to a CometBFT node, forwards local txs to it and keeps state-sync snapshots. Each
// builds its own engine, submit path and servers behind ConsensusMode (mode.ts), so startNode composes one without branching
// on the mode.
import { CometbftMode } from './cometbftMode.ts';
import type { ConsensusEarlyDeps, ConsensusMode } from './mode.ts';
import { SoloMode } from './soloMode.ts';

/** The mode `config.consensus` names. */
export function consensusMode(early: ConsensusEarlyDeps): ConsensusMode {
  return early.config.consensus === 'cometbft' ? new CometbftMode(early) : new SoloMode(early.config);
}
