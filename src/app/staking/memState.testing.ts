// The modules' state on plain maps, for the staking unit tests: slots and balances with nothing underneath.
import type { ModuleState } from './env.ts';

/** A ModuleState over two Maps; every slot and balance starts at 0. */
export class MemState implements ModuleState {
  readonly slots = new Map<string, bigint>();
  readonly balances = new Map<bigint, bigint>();

  /** The slot `s` of account `a`. */
  get(a: bigint, s: bigint): bigint {
    return this.slots.get(`${a}:${s}`) ?? 0n;
  }

  /** Sets the slot `s` of account `a`. */
  set(a: bigint, s: bigint, v: bigint): void {
    this.slots.set(`${a}:${s}`, v);
  }

  /** The balance of `a`. */
  balance(a: bigint): bigint {
    return this.balances.get(a) ?? 0n;
  }

  /** Sets the balance of `a`. */
  setBalance(a: bigint, v: bigint): void {
    this.balances.set(a, v);
  }

  /** The sum of every balance (the supply the state holds). */
  total(): bigint {
    let n = 0n;
    for (const v of this.balances.values()) n += v;
    return n;
  }
}
