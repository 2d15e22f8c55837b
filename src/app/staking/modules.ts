// The three modules together over one state: what a block does before and after its transactions, genesis, and
// the keepers a precompile or a query works with.
import { Distribution, type Vote } from './distribution.ts';
import { FEE_COLLECTOR, mint, type Env, type ModuleState } from './env.ts';
import { Slashing, type Misbehavior } from './slashing.ts';
import { Staking, type ValidatorUpdate } from './staking.ts';
import { DEC, type StakingParams, type Validator } from './types.ts';

/** What consensus tells the app about the block being made. */
export interface ConsensusInfo {
  /** The last commit's votes (absent in solo mode without distribution: nothing to credit). */
  votes: readonly Vote[];
  misbehavior: readonly Misbehavior[];
  /** Seconds since the previous block (inflation accrues by time). */
  elapsed: bigint;
}

/** The keepers over one environment. */
export class Modules {
  readonly staking: Staking;
  readonly distribution: Distribution;
  readonly slashing: Slashing;

  constructor(readonly env: Env) {
    this.staking = new Staking(env);
    this.distribution = new Distribution(env, this.staking);
    this.slashing = new Slashing(env, this.staking);
  }

  /** Modules over a state at a height and time. */
  static over(state: ModuleState, params: StakingParams, height: bigint, time: bigint): Modules {
    return new Modules({ state, params, height, time });
  }

  /** Before the block's transactions: inflation, the last block's fees to the stakers, liveness, evidence. */
  beginBlock(info: ConsensusInfo): void {
    const { params } = this.env;
    if (params.inflationRate > 0n && info.elapsed > 0n) {
      const bonded = this.staking.pool().bonded;
      const minted = (bonded * params.inflationRate * info.elapsed) / (DEC * SECONDS_PER_YEAR);
      mint(this.env, FEE_COLLECTOR, minted);
    }
    if (params.distributeFees && this.env.height > 1n) this.distribution.allocate(info.votes);
    this.slashing.handleVotes(info.votes);
    for (const m of info.misbehavior) this.slashing.handleMisbehavior(m);
  }

  /** After the block's transactions: the validator set follows stake; due unbondings mature. */
  endBlock(): ValidatorUpdate[] {
    const updates = this.staking.applyValidatorSetUpdates();
    this.staking.completeMatured();
    return updates;
  }

  /** Writes the genesis validators (their self-delegations already in the bonded pool's genesis balance). */
  initGenesis(validators: ReadonlyArray<{ validator: Validator; selfDelegation: bigint }>): ValidatorUpdate[] {
    for (const g of validators) this.staking.initGenesisValidator(g.validator, g.selfDelegation);
    // The pool holds them as not-bonded until the set is applied, which moves them to bonded: genesis funded the
    // bonded pool, so the tokens start in the not-bonded pool here and move back.
    return validators.length === 0 ? [] : this.staking.applyValidatorSetUpdates();
  }
}

/** Inflation accrues over a 365-day year. */
const SECONDS_PER_YEAR = 365n * 24n * 3600n;
