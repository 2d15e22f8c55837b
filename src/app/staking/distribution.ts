// x/distribution with the SDK's F1 fee distribution: each validator's rewards accrue per period as a cumulative
// reward ratio per token; a delegation's reward is its stake times the ratio's growth since it started, adjusted
// by the slashes in between. Nothing iterates over delegators per block.
import { bytesToBigint, concatBytes, u64be } from '../../primitives/hex.ts';
import { DISTRIBUTION_ADDRESS, DISTRIBUTION_POOL, FEE_COLLECTOR, ModuleError, transfer, type Env } from './env.ts';
import { mulRound, mulTrunc, quoTrunc, divRound, truncateDecimal } from './dec.ts';
import type { Staking } from './staking.ts';
import { Records } from './store.ts';
import { DEC, decodeInts, encodeInts, type DistributionHooks, type Validator } from './types.ts';

/** One validator's vote in the last commit, as CometBFT reports it. */
export interface Vote {
  consAddress: Uint8Array;
  power: bigint;
  signed: boolean;
}

/** A slash recorded for F1: the period it ended and the fraction taken. */
export interface SlashEvent {
  height: bigint;
  period: bigint;
  fraction: bigint;
}

const POOL_KEY = new TextEncoder().encode('communityPool');

/** The distribution keeper over one environment. */
export class Distribution implements DistributionHooks {
  private readonly current: Records;
  private readonly historical: Records;
  private readonly outstandingR: Records;
  private readonly commissionR: Records;
  private readonly starting: Records;
  private readonly slashes: Records;
  private readonly withdrawAddrs: Records;
  private readonly misc: Records;

  constructor(
    readonly env: Env,
    private readonly staking: Staking,
  ) {
    const s = env.state;
    const r = (tag: string) => new Records(s, DISTRIBUTION_ADDRESS, tag);
    this.current = r('current');
    this.historical = r('historical');
    this.outstandingR = r('outstanding');
    this.commissionR = r('commission');
    this.starting = r('starting');
    this.slashes = r('slashes');
    this.withdrawAddrs = r('withdrawAddr');
    this.misc = r('misc');
    staking.distribution = this;
  }

  // ---- records ----

  private dec(rec: Records, key: Uint8Array): bigint {
    const raw = rec.get(key);
    return raw === undefined ? 0n : decodeInts(raw)[0]![0]!;
  }

  private setDec(rec: Records, key: Uint8Array, v: bigint): void {
    rec.put(key, encodeInts([[v]]));
  }

  /** Current period rewards (Dec) and the period number. */
  currentRewards(val: Uint8Array): { rewards: bigint; period: bigint } {
    const raw = this.current.get(val);
    if (raw === undefined) return { rewards: 0n, period: 0n };
    const [r, p] = decodeInts(raw)[0]!;
    return { rewards: r!, period: p! };
  }

  private setCurrent(val: Uint8Array, rewards: bigint, period: bigint): void {
    this.current.put(val, encodeInts([[rewards, period]]));
  }

  private hist(val: Uint8Array, period: bigint): { ratio: bigint; refs: bigint } {
    const raw = this.historical.get(concatBytes(val, u64be(period)));
    if (raw === undefined) return { ratio: 0n, refs: 0n };
    const [ratio, refs] = decodeInts(raw)[0]!;
    return { ratio: ratio!, refs: refs! };
  }

  private setHist(val: Uint8Array, period: bigint, ratio: bigint, refs: bigint): void {
    this.historical.put(concatBytes(val, u64be(period)), refs === 0n ? undefined : encodeInts([[ratio, refs]]));
  }

  private incRef(val: Uint8Array, period: bigint): void {
    const h = this.hist(val, period);
    this.setHist(val, period, h.ratio, h.refs + 1n);
  }

  private decRef(val: Uint8Array, period: bigint): void {
    const h = this.hist(val, period);
    if (h.refs === 0n) return;
    this.setHist(val, period, h.ratio, h.refs - 1n);
  }

  /** Outstanding rewards of a validator (Dec): everything allocated to it and not yet withdrawn. */
  outstanding(val: Uint8Array): bigint {
    return this.dec(this.outstandingR, val);
  }

  /** Accumulated commission of a validator (Dec). */
  commission(val: Uint8Array): bigint {
    return this.dec(this.commissionR, val);
  }

  /** The community pool (Dec). */
  communityPool(): bigint {
    return this.dec(this.misc, POOL_KEY);
  }

  private addToPool(amount: bigint): void {
    this.setDec(this.misc, POOL_KEY, this.communityPool() + amount);
  }

  /** Where a delegator's rewards go (itself unless set). */
  withdrawAddress(del: Uint8Array): Uint8Array {
    return this.withdrawAddrs.get(del) ?? del;
  }

  /** A validator's slash events, in height order. */
  slashEvents(val: Uint8Array): SlashEvent[] {
    const raw = this.slashes.get(val);
    if (raw === undefined) return [];
    return decodeInts(raw).map(([height, period, fraction]) => ({
      height: height!,
      period: period!,
      fraction: fraction!,
    }));
  }

  /** A delegation's starting info (period, stake Dec, height), if any. */
  startingInfo(
    del: Uint8Array,
    val: Uint8Array,
  ): { previousPeriod: bigint; stake: bigint; height: bigint } | undefined {
    const raw = this.starting.get(concatBytes(del, val));
    if (raw === undefined) return undefined;
    const [previousPeriod, stake, height] = decodeInts(raw)[0]!;
    return { previousPeriod: previousPeriod!, stake: stake!, height: height! };
  }

  // ---- hooks from staking ----

  /** A new validator: period 1 starts with a zero ratio. */
  afterValidatorCreated(v: Validator): void {
    this.setHist(v.operator, 0n, 0n, 1n);
    this.setCurrent(v.operator, 0n, 1n);
  }

  /** Before a new delegation: the current period ends. */
  beforeDelegationCreated(v: Validator): void {
    this.incrementPeriod(v);
  }

  /** Before a delegation's shares change: its rewards are paid out. */
  beforeDelegationSharesModified(del: Uint8Array, v: Validator): void {
    this.withdrawDelegationRewards(del, v);
  }

  /** After a delegation changed: it starts again at the current period with its new stake. */
  afterDelegationModified(del: Uint8Array, v: Validator): void {
    const previousPeriod = this.currentRewards(v.operator).period - 1n;
    this.incRef(v.operator, previousPeriod);
    const shares = this.staking.delegation(del, v.operator) ?? 0n;
    this.starting.put(
      concatBytes(del, v.operator),
      encodeInts([[previousPeriod, stakeDec(shares, v), this.env.height]]),
    );
  }

  /** After a delegation was removed (its rewards were paid by beforeDelegationSharesModified). */
  afterDelegationRemoved(_del: Uint8Array, _v: Validator): void {}

  /** Before a slash: the period ends and the slash is recorded for F1. */
  beforeValidatorSlashed(v: Validator, fraction: bigint): void {
    if (fraction <= 0n || fraction > DEC) return;
    const period = this.incrementPeriod(v);
    this.incRef(v.operator, period);
    const events = this.slashEvents(v.operator);
    events.push({ height: this.env.height, period, fraction });
    this.slashes.put(v.operator, encodeInts(events.map((e) => [e.height, e.period, e.fraction])));
  }

  // ---- F1 ----

  /** Ends the validator's current period; returns its number. */
  incrementPeriod(v: Validator): bigint {
    const cur = this.currentRewards(v.operator);
    let ratio = 0n;
    if (v.tokens === 0n) {
      this.addToPool(cur.rewards);
      this.setDec(this.outstandingR, v.operator, this.outstanding(v.operator) - cur.rewards);
    } else ratio = cur.rewards / v.tokens; // rewards(Dec) ÷ tokens, truncated: a Dec per token
    const prev = this.hist(v.operator, cur.period - 1n);
    this.decRef(v.operator, cur.period - 1n);
    this.setHist(v.operator, cur.period, prev.ratio + ratio, 1n);
    this.setCurrent(v.operator, 0n, cur.period + 1n);
    return cur.period;
  }

  private rewardsBetween(val: Uint8Array, start: bigint, end: bigint, stake: bigint): bigint {
    const diff = this.hist(val, end).ratio - this.hist(val, start).ratio;
    if (diff < 0n) throw new ModuleError('negative rewards should not be possible');
    return mulTrunc(diff, stake);
  }

  /** A delegation's rewards (Dec) up to the end of `endingPeriod`. */
  calculateRewards(del: Uint8Array, v: Validator, endingPeriod: bigint): bigint {
    const info = this.startingInfo(del, v.operator);
    if (info === undefined || info.height === this.env.height) return 0n;
    let { previousPeriod: start, stake } = info;
    let rewards = 0n;
    for (const e of this.slashEvents(v.operator)) {
      if (e.height < info.height || e.height > this.env.height) continue;
      if (e.period > start) {
        rewards += this.rewardsBetween(v.operator, start, e.period, stake);
        stake = mulTrunc(stake, DEC - e.fraction);
        start = e.period;
      }
    }
    const shares = this.staking.delegation(del, v.operator) ?? 0n;
    const current = v.delegatorShares === 0n ? 0n : divRound(shares * v.tokens * DEC, v.delegatorShares);
    if (stake > current) stake = current; // the SDK's margin for rounding: never pay on more than is staked
    rewards += this.rewardsBetween(v.operator, start, endingPeriod, stake);
    return rewards;
  }

  /** Pays a delegation's rewards to its withdraw address; returns the whole tokens paid. */
  withdrawDelegationRewards(del: Uint8Array, v: Validator): bigint {
    if (this.startingInfo(del, v.operator) === undefined) return 0n;
    const ending = this.incrementPeriod(v);
    const raw = this.calculateRewards(del, v, ending);
    const outstanding = this.outstanding(v.operator);
    const rewards = raw < outstanding ? raw : outstanding;
    const [whole, remainder] = truncateDecimal(rewards);
    if (whole > 0n) transfer(this.env.state, DISTRIBUTION_POOL, bytesToBigint(this.withdrawAddress(del)), whole);
    this.setDec(this.outstandingR, v.operator, outstanding - rewards);
    this.addToPool(remainder);
    const info = this.startingInfo(del, v.operator)!;
    this.decRef(v.operator, info.previousPeriod);
    this.starting.put(concatBytes(del, v.operator), undefined);
    return whole;
  }

  /** MsgWithdrawDelegatorReward: pays and restarts the delegation. */
  withdrawRewards(del: Uint8Array, val: Uint8Array): bigint {
    const v = this.staking.mustValidator(val);
    if (this.staking.delegation(del, val) === undefined) throw new ModuleError('delegation does not exist');
    const paid = this.withdrawDelegationRewards(del, v);
    this.afterDelegationModified(del, this.staking.validator(val)!);
    return paid;
  }

  /** MsgWithdrawValidatorCommission: the whole part of the commission; the fraction stays. */
  withdrawCommission(val: Uint8Array): bigint {
    this.staking.mustValidator(val);
    const accum = this.commission(val);
    if (accum === 0n) throw new ModuleError('no validator commission to withdraw');
    const [whole, remainder] = truncateDecimal(accum);
    this.setDec(this.commissionR, val, remainder);
    this.setDec(this.outstandingR, val, this.outstanding(val) - whole * DEC);
    if (whole > 0n) transfer(this.env.state, DISTRIBUTION_POOL, bytesToBigint(this.withdrawAddress(val)), whole);
    return whole;
  }

  /** MsgSetWithdrawAddress. */
  setWithdrawAddress(del: Uint8Array, to: Uint8Array): void {
    this.withdrawAddrs.put(del, to);
  }

  /** MsgFundCommunityPool: from the depositor's balance. */
  fundCommunityPool(depositor: Uint8Array, amount: bigint): void {
    if (amount <= 0n) throw new ModuleError('invalid amount');
    transfer(this.env.state, bytesToBigint(depositor), DISTRIBUTION_POOL, amount);
    this.addToPool(amount * DEC);
  }

  /** MsgDepositValidatorRewardsPool: added to the validator's current rewards (no commission taken). */
  depositValidatorRewards(depositor: Uint8Array, val: Uint8Array, amount: bigint): void {
    if (amount <= 0n) throw new ModuleError('invalid amount');
    this.staking.mustValidator(val);
    transfer(this.env.state, bytesToBigint(depositor), DISTRIBUTION_POOL, amount);
    const cur = this.currentRewards(val);
    this.setCurrent(val, cur.rewards + amount * DEC, cur.period);
    this.setDec(this.outstandingR, val, this.outstanding(val) + amount * DEC);
  }

  /**
   * The block's fees (the fee collector's balance) go to the validators that were in the last commit, by power,
   * after the community tax; each keeps its commission and the rest accrues to its delegators.
   */
  allocate(votes: readonly Vote[]): void {
    const fees = this.env.state.balance(FEE_COLLECTOR);
    if (fees === 0n) return;
    transfer(this.env.state, FEE_COLLECTOR, DISTRIBUTION_POOL, fees);
    const collected = fees * DEC;
    const total = votes.reduce((n, v) => n + v.power, 0n);
    if (total === 0n) {
      this.addToPool(collected);
      return;
    }
    let remaining = collected;
    const feeMultiplier = mulTrunc(collected, DEC - this.env.params.communityTax);
    for (const vote of votes) {
      const v = this.staking.validatorByConsAddress(vote.consAddress);
      if (v === undefined) continue;
      const fraction = quoTrunc(vote.power * DEC, total * DEC);
      const reward = mulTrunc(feeMultiplier, fraction);
      const commission = mulRound(reward, v.commission.rate);
      this.setDec(this.commissionR, v.operator, this.commission(v.operator) + commission);
      const cur = this.currentRewards(v.operator);
      this.setCurrent(v.operator, cur.rewards + reward - commission, cur.period);
      this.setDec(this.outstandingR, v.operator, this.outstanding(v.operator) + reward);
      remaining -= reward;
    }
    this.addToPool(remaining);
  }

  /** A delegation's rewards now (Dec), as the query computes them: the current period ended on a scratch state. */
  pendingRewards(del: Uint8Array, val: Uint8Array): bigint {
    const v = this.staking.mustValidator(val);
    if (this.staking.delegation(del, val) === undefined) throw new ModuleError('delegation does not exist');
    const ending = this.incrementPeriod(v);
    return this.calculateRewards(del, v, ending);
  }
}

/** The stake a delegation's shares are worth, truncated (F1's starting stake). */
function stakeDec(shares: bigint, v: Validator): bigint {
  if (v.delegatorShares === 0n) return 0n;
  return (shares * v.tokens * DEC) / v.delegatorShares;
}
