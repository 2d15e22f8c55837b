// x/staking: validators, delegations, unbonding and redelegation, and the validator set that follows stake
// (Cosmos SDK semantics; shares and token amounts as the SDK's keeper computes them, every Dec quotient truncated).
import { createHash } from 'node:crypto';
import { bigintToBytes, bytesEqual, bytesToBigint, concatBytes } from '../../primitives/hex.ts';
import { BONDED_POOL, burn, ModuleError, NOT_BONDED_POOL, STAKING_ADDRESS, transfer, type Env } from './env.ts';
import { OrderedSet, Records } from './store.ts';
import {
  BondStatus,
  type DistributionHooks,
  DEC,
  decodeInts,
  decodeValidator,
  encodeInts,
  encodeValidator,
  POWER_REDUCTION,
  type Commission,
  type Description,
  type RedelegationEntry,
  type UnbondingEntry,
  type Validator,
} from './types.ts';

/** At most this many unbonding or redelegation entries per pair (the SDK's default MaxEntries). */
export const MAX_ENTRIES = 7;

/** A validator-set change for CometBFT (power 0 removes the key). */
export interface ValidatorUpdate {
  consPubkey: Uint8Array;
  power: bigint;
}

/** Hooks other modules give staking (x/slashing's signing info, x/distribution's periods). */
export interface StakingHooks {
  afterValidatorBonded?(v: Validator): void;
}

/** The consensus power of a token amount. */
export function powerOf(tokens: bigint): bigint {
  return tokens / POWER_REDUCTION;
}

/** The tokens `shares` of a validator are worth (truncated). */
export function tokensFromShares(v: Validator, shares: bigint): bigint {
  if (v.delegatorShares === 0n) return 0n;
  return (shares * v.tokens) / v.delegatorShares;
}

/** The staking keeper over one environment. */
export class Staking {
  readonly validators: Records;
  private readonly allValidators: OrderedSet;
  private readonly byConsKey: Records;
  private readonly delegations: Records;
  private readonly unbonding: Records;
  private readonly unbondingQueue: OrderedSet;
  private readonly redelegations: Records;
  private readonly redelegationQueue: OrderedSet;
  private readonly lastPower: Records;
  private readonly counters: Records;
  distribution?: DistributionHooks;
  hooks: StakingHooks = {};

  constructor(readonly env: Env) {
    const s = env.state;
    this.validators = new Records(s, STAKING_ADDRESS, 'validator');
    this.allValidators = new OrderedSet(s, STAKING_ADDRESS, 'validators');
    this.byConsKey = new Records(s, STAKING_ADDRESS, 'consKey');
    this.delegations = new Records(s, STAKING_ADDRESS, 'delegation');
    this.unbonding = new Records(s, STAKING_ADDRESS, 'unbonding');
    this.unbondingQueue = new OrderedSet(s, STAKING_ADDRESS, 'unbondingQueue');
    this.redelegations = new Records(s, STAKING_ADDRESS, 'redelegation');
    this.redelegationQueue = new OrderedSet(s, STAKING_ADDRESS, 'redelegationQueue');
    this.lastPower = new Records(s, STAKING_ADDRESS, 'lastPower');
    this.counters = new Records(s, STAKING_ADDRESS, 'counter');
  }

  // ---- reads ----

  /** A validator by operator address, or undefined. */
  validator(addr: Uint8Array): Validator | undefined {
    const raw = this.validators.get(addr);
    return raw === undefined ? undefined : decodeValidator(raw);
  }

  /** A validator that must exist. */
  mustValidator(addr: Uint8Array): Validator {
    const v = this.validator(addr);
    if (v === undefined) throw new ModuleError('validator does not exist');
    return v;
  }

  /** The validator whose consensus key has this CometBFT address (sha256(pubkey)[:20]). */
  validatorByConsAddress(consAddr: Uint8Array): Validator | undefined {
    const op = this.byConsKey.get(consAddr);
    return op === undefined ? undefined : this.validator(op);
  }

  /** Every validator, in creation order. */
  allValidatorList(): Validator[] {
    return this.allValidators.values().map((a) => this.validator(a)!);
  }

  /** A delegation's shares (LegacyDec), or undefined. */
  delegation(del: Uint8Array, val: Uint8Array): bigint | undefined {
    const raw = this.delegations.get(concatBytes(del, val));
    return raw === undefined ? undefined : bytesToBigint(raw);
  }

  /** The validators a delegator delegates to. */
  delegatorValidators(del: Uint8Array): Uint8Array[] {
    return new OrderedSet(this.env.state, STAKING_ADDRESS, `byDelegator/${hex(del)}`).values();
  }

  /** The delegators of a validator. */
  validatorDelegators(val: Uint8Array): Uint8Array[] {
    return new OrderedSet(this.env.state, STAKING_ADDRESS, `byValidator/${hex(val)}`).values();
  }

  /** A delegator's unbonding entries with a validator. */
  unbondingEntries(del: Uint8Array, val: Uint8Array): UnbondingEntry[] {
    const raw = this.unbonding.get(concatBytes(del, val));
    if (raw === undefined) return [];
    return decodeInts(raw).map(([creationHeight, completionTime, initialBalance, balance, id]) => ({
      creationHeight: creationHeight!,
      completionTime: completionTime!,
      initialBalance: initialBalance!,
      balance: balance!,
      id: id!,
    }));
  }

  /** Every (delegator, validator) pair with unbonding entries. */
  unbondingPairs(): Array<[Uint8Array, Uint8Array]> {
    return this.unbondingQueue.values().map((k) => [k.subarray(0, 20), k.subarray(20, 40)]);
  }

  /** A delegator's redelegation entries from `src` to `dst`. */
  redelegationEntries(del: Uint8Array, src: Uint8Array, dst: Uint8Array): RedelegationEntry[] {
    const raw = this.redelegations.get(concatBytes(del, src, dst));
    if (raw === undefined) return [];
    return decodeInts(raw).map(([creationHeight, completionTime, initialBalance, sharesDst, id]) => ({
      creationHeight: creationHeight!,
      completionTime: completionTime!,
      initialBalance: initialBalance!,
      sharesDst: sharesDst!,
      id: id!,
    }));
  }

  /** Every (delegator, source, destination) triple with redelegation entries. */
  redelegationTriples(): Array<[Uint8Array, Uint8Array, Uint8Array]> {
    return this.redelegationQueue.values().map((k) => [k.subarray(0, 20), k.subarray(20, 40), k.subarray(40, 60)]);
  }

  /** The last validator set sent to consensus: operator → power. */
  lastValidatorPowers(): Array<[Uint8Array, bigint]> {
    const out: Array<[Uint8Array, bigint]> = [];
    for (const v of this.allValidators.values()) {
      const raw = this.lastPower.get(v);
      if (raw !== undefined) out.push([v, bytesToBigint(raw)]);
    }
    return out;
  }

  /** Bonded and not-bonded pool balances. */
  pool(): { bonded: bigint; notBonded: bigint } {
    return { bonded: this.env.state.balance(BONDED_POOL), notBonded: this.env.state.balance(NOT_BONDED_POOL) };
  }

  // ---- writes ----

  /** Stores a validator record. */
  setValidator(v: Validator): void {
    this.validators.put(v.operator, encodeValidator(v));
  }

  private nextId(): bigint {
    const key = new TextEncoder().encode('entry');
    const n = bytesToBigint(this.counters.get(key) ?? new Uint8Array(0)) + 1n;
    this.counters.put(key, bigintToBytes(n));
    return n;
  }

  /** MsgCreateValidator: the operator self-delegates `amount` from its balance. */
  createValidator(args: {
    operator: Uint8Array;
    consPubkey: Uint8Array;
    description: Description;
    commission: Omit<Commission, 'updateTime'>;
    minSelfDelegation: bigint;
    amount: bigint;
  }): Validator {
    const { params, time } = this.env;
    if (this.validators.get(args.operator) !== undefined)
      throw new ModuleError(
        'validator already exist for this operator address; must use new validator operator address',
      );
    if (args.consPubkey.length !== 32) throw new ModuleError('consensus pubkey must be a 32-byte ed25519 key');
    const consAddr = consAddressOf(args.consPubkey);
    if (this.byConsKey.get(consAddr) !== undefined)
      throw new ModuleError('validator already exist for this pubkey; must use new validator pubkey');
    checkDescription(args.description);
    const c = args.commission;
    if (c.maxRate < 0n || c.maxRate > DEC)
      throw new ModuleError('commission parameter must be positive and not greater than one');
    if (c.rate < 0n) throw new ModuleError('commission rate must be positive');
    if (c.rate > c.maxRate) throw new ModuleError('commission cannot be more than the max rate');
    if (c.maxChangeRate < 0n || c.maxChangeRate > c.maxRate)
      throw new ModuleError('commission change rate cannot be more than the max rate');
    if (c.rate < params.minCommissionRate)
      throw new ModuleError('commission rate cannot be less than the minimum commission rate');
    if (args.minSelfDelegation < params.minSelfDelegation || args.minSelfDelegation <= 0n)
      throw new ModuleError('minimum self delegation must be a positive integer');
    if (args.amount <= 0n) throw new ModuleError('invalid delegation amount');
    if (args.amount < args.minSelfDelegation)
      throw new ModuleError("validator's self delegation must be greater than their minimum self delegation");
    const v: Validator = {
      operator: args.operator,
      consPubkey: args.consPubkey,
      jailed: false,
      status: BondStatus.Unbonded,
      tokens: 0n,
      delegatorShares: 0n,
      description: args.description,
      unbondingHeight: 0n,
      unbondingTime: 0n,
      commission: { ...c, updateTime: time },
      minSelfDelegation: args.minSelfDelegation,
    };
    this.setValidator(v);
    this.allValidators.add(v.operator);
    this.byConsKey.put(consAddr, v.operator);
    this.distribution?.afterValidatorCreated(v);
    this.delegate(args.operator, v.operator, args.amount);
    return this.validator(v.operator)!;
  }

  /** MsgEditValidator: description, commission rate (once a day, within max change) and min self-delegation. */
  editValidator(operator: Uint8Array, description: Description, rate?: bigint, minSelfDelegation?: bigint): Validator {
    const v = this.mustValidator(operator);
    checkDescription(description);
    v.description = description;
    if (rate !== undefined) {
      const c = v.commission;
      if (this.env.time - c.updateTime < 24n * 3600n)
        throw new ModuleError('commission cannot be changed more than once in 24h');
      if (rate < 0n) throw new ModuleError('commission rate must be positive');
      if (rate > c.maxRate) throw new ModuleError('commission cannot be more than the max rate');
      const delta = rate > c.rate ? rate - c.rate : 0n;
      if (delta > c.maxChangeRate) throw new ModuleError('commission cannot be changed more than max change rate');
      if (rate < this.env.params.minCommissionRate)
        throw new ModuleError('commission rate cannot be less than the minimum commission rate');
      c.rate = rate;
      c.updateTime = this.env.time;
    }
    if (minSelfDelegation !== undefined) {
      if (minSelfDelegation <= v.minSelfDelegation) throw new ModuleError('minimum self delegation cannot be decrease');
      if (minSelfDelegation > v.tokens)
        throw new ModuleError("validator's self delegation must be greater than their minimum self delegation");
      v.minSelfDelegation = minSelfDelegation;
    }
    this.setValidator(v);
    return v;
  }

  /** MsgDelegate: moves `amount` of the delegator's balance into the validator's pool; returns the new shares. */
  delegate(del: Uint8Array, val: Uint8Array, amount: bigint): bigint {
    if (amount <= 0n) throw new ModuleError('invalid delegation amount');
    const v = this.mustValidator(val);
    if (v.delegatorShares === 0n && v.tokens > 0n)
      throw new ModuleError('invalid delegation: validator has no shares but has tokens');
    const pool = v.status === BondStatus.Bonded ? BONDED_POOL : NOT_BONDED_POOL;
    transfer(this.env.state, bytesToBigint(del), pool, amount);
    const shares = this.addToDelegation(del, v, amount);
    return shares;
  }

  /** Adds `amount` tokens (already in the validator's pool) to a delegation; returns the shares issued. */
  private addToDelegation(del: Uint8Array, v: Validator, amount: bigint): bigint {
    const prior = this.delegation(del, v.operator);
    if (prior === undefined) this.distribution?.beforeDelegationCreated(v);
    else this.distribution?.beforeDelegationSharesModified(del, v);
    const fresh = this.validator(v.operator)!; // distribution hooks do not change it, but re-read for safety
    const issued = fresh.delegatorShares === 0n ? amount * DEC : (fresh.delegatorShares * amount) / fresh.tokens;
    fresh.tokens += amount;
    fresh.delegatorShares += issued;
    this.setValidator(fresh);
    this.setDelegation(del, fresh.operator, (prior ?? 0n) + issued);
    this.distribution?.afterDelegationModified(del, fresh);
    return issued;
  }

  private setDelegation(del: Uint8Array, val: Uint8Array, shares: bigint): void {
    const byDel = new OrderedSet(this.env.state, STAKING_ADDRESS, `byDelegator/${hex(del)}`);
    const byVal = new OrderedSet(this.env.state, STAKING_ADDRESS, `byValidator/${hex(val)}`);
    if (shares === 0n) {
      this.delegations.put(concatBytes(del, val), undefined);
      byDel.delete(val);
      byVal.delete(del);
    } else {
      this.delegations.put(concatBytes(del, val), bigintBytes(shares));
      byDel.add(val);
      byVal.add(del);
    }
  }

  /** The shares `amount` tokens of a delegation amount to (all of them when it asks for the whole delegation). */
  private sharesFor(del: Uint8Array, v: Validator, amount: bigint): bigint {
    if (amount <= 0n) throw new ModuleError('invalid shares amount');
    const have = this.delegation(del, v.operator);
    if (have === undefined) throw new ModuleError('no delegation for (address, validator) tuple');
    if (v.tokens === 0n) throw new ModuleError('invalid shares amount');
    let shares = (v.delegatorShares * amount) / v.tokens;
    if (amount >= tokensFromShares(v, have)) {
      if (amount > tokensFromShares(v, have)) throw new ModuleError('invalid shares amount');
      shares = have;
    }
    if (shares > have) throw new ModuleError('invalid shares amount');
    if (shares === 0n) throw new ModuleError('invalid shares amount');
    return shares;
  }

  /** Removes shares from a delegation and the validator; returns the tokens they were worth (still in its pool). */
  private unbondShares(del: Uint8Array, val: Uint8Array, shares: bigint): bigint {
    const v = this.mustValidator(val);
    const have = this.delegation(del, val) ?? 0n;
    if (shares > have) throw new ModuleError('invalid shares amount');
    this.distribution?.beforeDelegationSharesModified(del, v);
    const left = have - shares;
    const fresh = this.validator(val)!;
    // A validator's operator may not go below its minimum self-delegation without being jailed.
    if (bytesEqual(del, fresh.operator) && !fresh.jailed && tokensFromShares(fresh, left) < fresh.minSelfDelegation) {
      fresh.jailed = true;
    }
    const remaining = fresh.delegatorShares - shares;
    let tokens: bigint;
    if (remaining === 0n) {
      tokens = fresh.tokens;
      fresh.tokens = 0n;
    } else {
      tokens = (shares * fresh.tokens) / fresh.delegatorShares;
      fresh.tokens -= tokens;
    }
    fresh.delegatorShares = remaining;
    this.setValidator(fresh);
    this.setDelegation(del, val, left);
    if (left > 0n) this.distribution?.afterDelegationModified(del, fresh);
    else this.distribution?.afterDelegationRemoved(del, fresh);
    return tokens;
  }

  /** MsgUndelegate: starts unbonding `amount` tokens; returns the completion time. */
  undelegate(del: Uint8Array, val: Uint8Array, amount: bigint): { completionTime: bigint; amount: bigint } {
    const v = this.mustValidator(val);
    const shares = this.sharesFor(del, v, amount);
    const entries = this.unbondingEntries(del, val);
    if (entries.length >= MAX_ENTRIES)
      throw new ModuleError('too many unbonding delegation entries for (delegator, validator) tuple');
    const wasBonded = v.status === BondStatus.Bonded;
    const tokens = this.unbondShares(del, val, shares);
    // The SDK's rule: shares worth less than one token (truncated) cannot be unbonded.
    if (tokens === 0n) throw new ModuleError('too few tokens to undelegate (truncates to zero tokens)');
    if (wasBonded) transfer(this.env.state, BONDED_POOL, NOT_BONDED_POOL, tokens);
    const completionTime = this.env.time + this.env.params.unbondingTime;
    entries.push({
      creationHeight: this.env.height,
      completionTime,
      initialBalance: tokens,
      balance: tokens,
      id: this.nextId(),
    });
    this.setUnbonding(del, val, entries);
    return { completionTime, amount: tokens };
  }

  private setUnbonding(del: Uint8Array, val: Uint8Array, entries: UnbondingEntry[]): void {
    const key = concatBytes(del, val);
    if (entries.length === 0) {
      this.unbonding.put(key, undefined);
      this.unbondingQueue.delete(key);
      return;
    }
    this.unbonding.put(
      key,
      encodeInts(entries.map((e) => [e.creationHeight, e.completionTime, e.initialBalance, e.balance, e.id])),
    );
    this.unbondingQueue.add(key);
  }

  private setRedelegation(del: Uint8Array, src: Uint8Array, dst: Uint8Array, entries: RedelegationEntry[]): void {
    const key = concatBytes(del, src, dst);
    if (entries.length === 0) {
      this.redelegations.put(key, undefined);
      this.redelegationQueue.delete(key);
      return;
    }
    this.redelegations.put(
      key,
      encodeInts(entries.map((e) => [e.creationHeight, e.completionTime, e.initialBalance, e.sharesDst, e.id])),
    );
    this.redelegationQueue.add(key);
  }

  /** MsgCancelUnbondingDelegation: re-delegates `amount` of the entry created at `creationHeight`. */
  cancelUnbonding(del: Uint8Array, val: Uint8Array, amount: bigint, creationHeight: bigint): void {
    const v = this.mustValidator(val);
    if (amount <= 0n) throw new ModuleError('invalid amount');
    if (v.jailed) throw new ModuleError('validator for this address is currently jailed');
    const entries = this.unbondingEntries(del, val);
    if (entries.length === 0) throw new ModuleError('no unbonding delegation found');
    const i = entries.findIndex((e) => e.creationHeight === creationHeight && e.completionTime > this.env.time);
    if (i < 0) throw new ModuleError('unbonding delegation entry is not found at block height');
    const e = entries[i]!;
    if (amount > e.balance) throw new ModuleError('amount is greater than the unbonding delegation entry balance');
    e.balance -= amount;
    e.initialBalance -= amount;
    if (e.balance === 0n) entries.splice(i, 1);
    this.setUnbonding(del, val, entries);
    if (v.status === BondStatus.Bonded) transfer(this.env.state, NOT_BONDED_POOL, BONDED_POOL, amount);
    this.addToDelegation(del, v, amount);
  }

  /** MsgBeginRedelegate: moves `amount` of a delegation to another validator at once; returns the completion time. */
  redelegate(del: Uint8Array, src: Uint8Array, dst: Uint8Array, amount: bigint): bigint {
    if (bytesEqual(src, dst)) throw new ModuleError('cannot redelegate to the same validator');
    const vs = this.mustValidator(src);
    const vd = this.mustValidator(dst);
    // A redelegation into `src` that has not matured yet may not be passed on (the SDK's transitive rule).
    for (const [d, , to] of this.redelegationTriples()) {
      if (bytesEqual(d, del) && bytesEqual(to, src))
        throw new ModuleError(
          'redelegation to this validator already in progress; first redelegation to this validator must complete before next redelegation',
        );
    }
    const entries = this.redelegationEntries(del, src, dst);
    if (entries.length >= MAX_ENTRIES)
      throw new ModuleError('too many redelegation entries for (delegator, src-validator, dst-validator) tuple');
    const shares = this.sharesFor(del, vs, amount);
    const srcBonded = vs.status === BondStatus.Bonded;
    const tokens = this.unbondShares(del, src, shares);
    if (tokens === 0n) throw new ModuleError('too few tokens to redelegate (truncates to zero tokens)');
    const dstBonded = vd.status === BondStatus.Bonded;
    if (srcBonded && !dstBonded) transfer(this.env.state, BONDED_POOL, NOT_BONDED_POOL, tokens);
    if (!srcBonded && dstBonded) transfer(this.env.state, NOT_BONDED_POOL, BONDED_POOL, tokens);
    const sharesDst = this.addToDelegation(del, this.validator(dst)!, tokens);
    // From an unbonded validator nothing is at stake at the source: the redelegation completes at once.
    if (vs.status === BondStatus.Unbonded) return this.env.time;
    const completionTime = this.env.time + this.env.params.unbondingTime;
    entries.push({
      creationHeight: this.env.height,
      completionTime,
      initialBalance: tokens,
      sharesDst,
      id: this.nextId(),
    });
    this.setRedelegation(del, src, dst, entries);
    return completionTime;
  }

  /** Jails a validator (it leaves the set at the end of the block). */
  jail(v: Validator): void {
    v.jailed = true;
    this.setValidator(v);
  }

  /** Unjails a validator. */
  unjail(v: Validator): void {
    v.jailed = false;
    this.setValidator(v);
  }

  /**
   * Slashes `fraction` of the stake a validator had at `infractionHeight` (its power then): unbonding and
   * redelegation entries created since pay their share, the validator's tokens the rest. Burns the tokens;
   * returns how many.
   */
  slash(consAddr: Uint8Array, infractionHeight: bigint, power: bigint, fraction: bigint): bigint {
    const v = this.validatorByConsAddress(consAddr);
    if (v === undefined || v.status === BondStatus.Unbonded) return 0n;
    const amount = (power * POWER_REDUCTION * fraction) / DEC;
    let remaining = amount;
    let burned = 0n;
    if (infractionHeight < this.env.height) {
      for (const [del, val] of this.unbondingPairs()) {
        if (!bytesEqual(val, v.operator)) continue;
        const entries = this.unbondingEntries(del, val);
        let changed = false;
        for (const e of entries) {
          if (e.creationHeight < infractionHeight || e.completionTime <= this.env.time) continue;
          const share = (e.initialBalance * fraction) / DEC;
          remaining -= share;
          const cut = share < e.balance ? share : e.balance;
          if (cut === 0n) continue;
          e.balance -= cut;
          burn(this.env, NOT_BONDED_POOL, cut);
          burned += cut;
          changed = true;
        }
        if (changed) this.setUnbonding(del, val, entries);
      }
      for (const [del, src, dst] of this.redelegationTriples()) {
        if (!bytesEqual(src, v.operator)) continue;
        for (const e of this.redelegationEntries(del, src, dst)) {
          if (e.creationHeight < infractionHeight || e.completionTime <= this.env.time) continue;
          const share = (e.initialBalance * fraction) / DEC;
          remaining -= share;
          const d = this.mustValidator(dst);
          let shares = (d.delegatorShares * share) / (d.tokens === 0n ? 1n : d.tokens);
          const held = this.delegation(del, dst) ?? 0n;
          if (shares > held) shares = held;
          if (shares === 0n) continue;
          const dstBonded = d.status === BondStatus.Bonded;
          const tokens = this.unbondShares(del, dst, shares);
          burn(this.env, dstBonded ? BONDED_POOL : NOT_BONDED_POOL, tokens);
          burned += tokens;
        }
      }
    }
    if (remaining < 0n) remaining = 0n;
    const fresh = this.validator(v.operator)!;
    const cut = remaining < fresh.tokens ? remaining : fresh.tokens;
    if (cut > 0n && fresh.tokens > 0n) {
      // The effective fraction for F1, rounded up (the SDK's QuoRoundUp): a delegation's stake after the slash is
      // then never above what its shares are worth.
      this.distribution?.beforeValidatorSlashed(fresh, (cut * DEC + fresh.tokens - 1n) / fresh.tokens);
      fresh.tokens -= cut;
      this.setValidator(fresh);
      burn(this.env, fresh.status === BondStatus.Bonded ? BONDED_POOL : NOT_BONDED_POOL, cut);
      burned += cut;
    }
    return burned;
  }

  // ---- end of block ----

  /**
   * The set of the top `maxValidators` by power among validators that are not jailed: bonds newcomers, starts
   * unbonding leavers, stores the new powers and returns the changes for consensus.
   */
  applyValidatorSetUpdates(): ValidatorUpdate[] {
    const { params } = this.env;
    const last = new Map(this.lastValidatorPowers().map(([a, p]) => [hex(a), p]));
    const ranked = this.allValidatorList()
      .filter((v) => !v.jailed && powerOf(v.tokens) > 0n)
      .sort((a, b) => {
        const pa = powerOf(a.tokens);
        const pb = powerOf(b.tokens);
        if (pa !== pb) return pa > pb ? -1 : 1;
        return compareBytes(a.operator, b.operator);
      })
      .slice(0, params.maxValidators);
    const updates: ValidatorUpdate[] = [];
    const next = new Set<string>();
    for (const v of ranked) {
      const key = hex(v.operator);
      next.add(key);
      const power = powerOf(v.tokens);
      if (v.status !== BondStatus.Bonded) {
        transfer(this.env.state, NOT_BONDED_POOL, BONDED_POOL, v.tokens);
        v.status = BondStatus.Bonded;
        v.unbondingHeight = 0n;
        v.unbondingTime = 0n;
        this.setValidator(v);
        this.hooks.afterValidatorBonded?.(v);
      }
      if (last.get(key) !== power) {
        updates.push({ consPubkey: v.consPubkey, power });
        this.lastPower.put(v.operator, bigintBytes(power));
      }
    }
    for (const [key] of last) {
      if (next.has(key)) continue;
      const op = Buffer.from(key, 'hex');
      const v = this.validator(op)!;
      if (v.status === BondStatus.Bonded) {
        transfer(this.env.state, BONDED_POOL, NOT_BONDED_POOL, v.tokens);
        v.status = BondStatus.Unbonding;
        v.unbondingHeight = this.env.height;
        v.unbondingTime = this.env.time + params.unbondingTime;
        this.setValidator(v);
      }
      updates.push({ consPubkey: v.consPubkey, power: 0n });
      this.lastPower.put(op, undefined);
    }
    return updates;
  }

  /** Matures what is due at the block's time: unbonding validators, undelegations (paid out) and redelegations. */
  completeMatured(): void {
    const now = this.env.time;
    for (const v of this.allValidatorList()) {
      if (v.status === BondStatus.Unbonding && v.unbondingTime <= now) {
        v.status = BondStatus.Unbonded;
        this.setValidator(v);
      }
    }
    for (const [del, val] of this.unbondingPairs()) {
      const entries = this.unbondingEntries(del, val);
      const keep = entries.filter((e) => e.completionTime > now);
      if (keep.length === entries.length) continue;
      for (const e of entries) {
        if (e.completionTime <= now && e.balance > 0n)
          transfer(this.env.state, NOT_BONDED_POOL, bytesToBigint(del), e.balance);
      }
      this.setUnbonding(del, val, keep);
    }
    for (const [del, src, dst] of this.redelegationTriples()) {
      const entries = this.redelegationEntries(del, src, dst);
      const keep = entries.filter((e) => e.completionTime > now);
      if (keep.length !== entries.length) this.setRedelegation(del, src, dst, keep);
    }
  }

  /** Writes a genesis validator with its self-delegation (tokens already in the bonded pool's genesis balance). */
  initGenesisValidator(v: Validator, selfDelegation: bigint): void {
    v.tokens = 0n;
    v.delegatorShares = 0n;
    this.setValidator(v);
    this.allValidators.add(v.operator);
    this.byConsKey.put(consAddressOf(v.consPubkey), v.operator);
    this.distribution?.afterValidatorCreated(v);
    this.addToDelegation(v.operator, this.validator(v.operator)!, selfDelegation);
  }
}

/** CometBFT's address of an ed25519 key: sha256(pubkey)[:20]. */
export function consAddressOf(pubkey: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(pubkey).digest().subarray(0, 20));
}

function checkDescription(d: Description): void {
  if (d.moniker.length === 0) throw new ModuleError('empty description: moniker is required');
  if (d.moniker.length > 70) throw new ModuleError('invalid moniker length; got: ' + d.moniker.length + ', max: 70');
  if (d.identity.length > 3000) throw new ModuleError('invalid identity length');
  if (d.website.length > 140) throw new ModuleError('invalid website length');
  if (d.securityContact.length > 140) throw new ModuleError('invalid security contact length');
  if (d.details.length > 280) throw new ModuleError('invalid details length');
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

function bigintBytes(n: bigint): Uint8Array {
  return bigintToBytes(n);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
