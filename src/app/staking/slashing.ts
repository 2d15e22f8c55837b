// x/slashing: liveness over a sliding window of blocks (downtime jails and slashes), double signing reported by
// CometBFT (slashed, jailed for ever, tombstoned), and unjail once the jail time has passed.
import { concatBytes, u64be } from '../../primitives/hex.ts';
import { ModuleError, SLASHING_ADDRESS, type Env } from './env.ts';
import type { Vote } from './distribution.ts';
import { consAddressOf, powerOf, type Staking } from './staking.ts';
import { OrderedSet, Records } from './store.ts';
import { BondStatus, DEC, decodeInts, encodeInts, type SigningInfo, type Validator } from './types.ts';

/** CometBFT applies a validator-set change this many blocks after it is returned (the SDK's ValidatorUpdateDelay). */
export const VALIDATOR_UPDATE_DELAY = 1n;
/** The jail end of a double signer: 9999-12-31T23:59:59Z, as the SDK's DoubleSignJailEndTime. */
export const DOUBLE_SIGN_JAIL_END = 253402300799n;

/** One piece of misbehaviour CometBFT reports (duplicate vote or light-client attack). */
export interface Misbehavior {
  consAddress: Uint8Array;
  height: bigint;
  power: bigint;
}

/** The slashing keeper over one environment. */
export class Slashing {
  private readonly infos: Records;
  private readonly infoSet: OrderedSet;
  private readonly bitmap: Records;

  constructor(
    readonly env: Env,
    private readonly staking: Staking,
  ) {
    this.infos = new Records(env.state, SLASHING_ADDRESS, 'signingInfo');
    this.infoSet = new OrderedSet(env.state, SLASHING_ADDRESS, 'signingInfos');
    this.bitmap = new Records(env.state, SLASHING_ADDRESS, 'missed');
    staking.hooks.afterValidatorBonded = (v) => this.afterValidatorBonded(v);
  }

  /** A consensus address's signing info, or undefined. */
  signingInfo(consAddr: Uint8Array): SigningInfo | undefined {
    const raw = this.infos.get(consAddr);
    if (raw === undefined) return undefined;
    const [startHeight, indexOffset, jailedUntil, tombstoned, missed] = decodeInts(raw)[0]!;
    return {
      address: consAddr,
      startHeight: startHeight!,
      indexOffset: indexOffset!,
      jailedUntil: jailedUntil!,
      tombstoned: tombstoned === 1n,
      missedBlocksCounter: missed!,
    };
  }

  /** Every signing info, in creation order. */
  signingInfos(): SigningInfo[] {
    return this.infoSet.values().map((a) => this.signingInfo(a)!);
  }

  private setInfo(i: SigningInfo): void {
    this.infos.put(
      i.address,
      encodeInts([[i.startHeight, i.indexOffset, i.jailedUntil, i.tombstoned, i.missedBlocksCounter]]),
    );
    this.infoSet.add(i.address);
  }

  private afterValidatorBonded(v: Validator): void {
    const addr = consAddressOf(v.consPubkey);
    const i = this.signingInfo(addr);
    if (i === undefined) {
      this.setInfo({
        address: addr,
        startHeight: this.env.height,
        indexOffset: 0n,
        jailedUntil: 0n,
        tombstoned: false,
        missedBlocksCounter: 0n,
      });
    }
  }

  private missedAt(addr: Uint8Array, index: bigint): boolean {
    const word = this.bitmap.get(concatBytes(addr, u64be(index / 256n)));
    if (word === undefined) return false;
    const bit = Number(index % 256n);
    return ((word[bit >> 3] ?? 0) & (1 << (bit & 7))) !== 0;
  }

  private setMissed(addr: Uint8Array, index: bigint, missed: boolean): void {
    const key = concatBytes(addr, u64be(index / 256n));
    const word = new Uint8Array(32);
    word.set(this.bitmap.get(key) ?? new Uint8Array(0));
    const bit = Number(index % 256n);
    if (missed) word[bit >> 3]! |= 1 << (bit & 7);
    else word[bit >> 3]! &= ~(1 << (bit & 7));
    this.bitmap.put(key, word.every((b) => b === 0) ? undefined : word);
  }

  private clearMissed(addr: Uint8Array): void {
    const window = this.env.params.signedBlocksWindow;
    for (let chunk = 0n; chunk * 256n < window; chunk++) this.bitmap.put(concatBytes(addr, u64be(chunk)), undefined);
  }

  /** Liveness: records each vote of the last commit; a validator that missed too many is slashed and jailed. */
  handleVotes(votes: readonly Vote[]): void {
    const { params, height, time } = this.env;
    const window = params.signedBlocksWindow;
    const maxMissed = window - (params.minSignedPerWindow * window) / DEC;
    for (const vote of votes) {
      const v = this.staking.validatorByConsAddress(vote.consAddress);
      if (v === undefined || v.jailed) continue;
      const info = this.signingInfo(vote.consAddress);
      if (info === undefined) continue;
      const index = info.indexOffset % window;
      info.indexOffset++;
      const was = this.missedAt(vote.consAddress, index);
      const missed = !vote.signed;
      if (was !== missed) {
        this.setMissed(vote.consAddress, index, missed);
        info.missedBlocksCounter += missed ? 1n : -1n;
      }
      const minHeight = info.startHeight + window;
      if (height > minHeight && info.missedBlocksCounter > maxMissed && v.status === BondStatus.Bonded) {
        const infraction = height - VALIDATOR_UPDATE_DELAY - 1n;
        this.staking.slash(vote.consAddress, infraction, vote.power, params.slashFractionDowntime);
        this.staking.jail(this.staking.validator(v.operator)!);
        info.jailedUntil = time + params.downtimeJailDuration;
        info.missedBlocksCounter = 0n;
        info.indexOffset = 0n;
        this.clearMissed(vote.consAddress);
      }
      this.setInfo(info);
    }
  }

  /** Double signing: slashed at the infraction height, jailed for ever and tombstoned. */
  handleMisbehavior(m: Misbehavior): void {
    const v = this.staking.validatorByConsAddress(m.consAddress);
    if (v === undefined || v.status === BondStatus.Unbonded) return;
    const info = this.signingInfo(m.consAddress);
    if (info === undefined || info.tombstoned) return;
    const distributionHeight = m.height - VALIDATOR_UPDATE_DELAY;
    this.staking.slash(m.consAddress, distributionHeight, m.power, this.env.params.slashFractionDoubleSign);
    const fresh = this.staking.validator(v.operator)!;
    if (!fresh.jailed) this.staking.jail(fresh);
    info.jailedUntil = DOUBLE_SIGN_JAIL_END;
    info.tombstoned = true;
    this.setInfo(info);
  }

  /** MsgUnjail. */
  unjail(operator: Uint8Array): void {
    const v = this.staking.validator(operator);
    if (v === undefined) throw new ModuleError('address is not associated with any known validator');
    const self = this.staking.delegation(operator, operator);
    if (self === undefined) throw new ModuleError('validator has no self-delegation; cannot be unjailed');
    const selfTokens = v.delegatorShares === 0n ? 0n : (self * v.tokens) / v.delegatorShares;
    if (selfTokens < v.minSelfDelegation)
      throw new ModuleError("validator's self delegation less than minimum; cannot be unjailed");
    if (!v.jailed) throw new ModuleError('validator not jailed; cannot be unjailed');
    const info = this.signingInfo(consAddressOf(v.consPubkey));
    if (info !== undefined) {
      if (info.tombstoned) throw new ModuleError('validator still jailed; cannot be unjailed');
      if (this.env.time < info.jailedUntil) throw new ModuleError('validator still jailed; cannot be unjailed');
    }
    this.staking.unjail(v);
  }

  /** Whether a validator's consensus power is zero for the set (jailed or no stake). */
  static inactive(v: Validator): boolean {
    return v.jailed || powerOf(v.tokens) === 0n;
  }
}
