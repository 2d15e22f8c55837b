// The solo engine's clock: the wall clock plus an offset, moved by the dev toolkit with Anvil's rules
// (evm_increaseTime, evm_setNextBlockTimestamp, anvil_setBlockTimestampInterval, anvil_setTime). Blocks the wall
// clock times run strictly after their parent; the explicit controls may give a block its parent's timestamp, and
// anvil_setTime an earlier one, as on Anvil.

/** The clock's state, for evm_snapshot / evm_revert. */
export interface ClockState {
  offsetSec: bigint;
  nextTimestamp?: bigint;
  intervalSec?: bigint;
  floor?: bigint;
}

/** The timestamp of a block about to be sealed, and whether it must be taken as is (not bumped past the parent). */
export interface NextTime {
  time: bigint;
  exact: boolean;
}

const wallSeconds = () => BigInt(Math.floor(Date.now() / 1000));

/** Block timestamps of the solo engine. */
export class DevClock {
  /** Seconds added to the wall clock. */
  private offsetSec = 0n;
  /** The timestamp the next block must have (evm_setNextBlockTimestamp); consumed by that block. */
  private nextTimestamp?: bigint;
  /** anvil_setBlockTimestampInterval: each block this many seconds after the one before. */
  private intervalSec?: bigint;
  /** anvil_setTime: the timestamp the next block counts from instead of its parent's (Anvil's last_timestamp). */
  private floor?: bigint;

  /** evm_increaseTime: moves the clock of later blocks forward; returns the total offset in seconds. */
  increaseTime(seconds: bigint): bigint {
    this.offsetSec += seconds;
    return this.offsetSec;
  }

  /** The timestamp later blocks may not go below (a set time, else the head's). */
  base(parent: bigint): bigint {
    return this.floor ?? parent;
  }

  /** evm_setNextBlockTimestamp: the next block gets exactly `ts` (validated by the caller against base()). */
  setNextBlockTimestamp(ts: bigint): void {
    this.nextTimestamp = ts;
  }

  /** anvil_setBlockTimestampInterval: later blocks each `seconds` after the one before (0: the same timestamp). */
  setInterval(seconds: bigint): void {
    this.intervalSec = seconds;
  }

  /** anvil_removeBlockTimestampInterval: whether an interval was set. */
  removeInterval(): boolean {
    const had = this.intervalSec !== undefined;
    this.intervalSec = undefined;
    return had;
  }

  /**
   * anvil_setTime: the clock reads `ts` now; the next block counts from it (it may be earlier than the head's) and a
   * set next timestamp is dropped. Returns the seconds from the wall clock to `ts` (0 for a past `ts`).
   */
  setTime(ts: bigint): bigint {
    const wall = wallSeconds();
    this.offsetSec = ts - wall;
    this.floor = ts;
    this.nextTimestamp = undefined;
    return ts > wall ? ts - wall : 0n;
  }

  /** The state, for evm_snapshot. */
  state(): ClockState {
    return {
      offsetSec: this.offsetSec,
      nextTimestamp: this.nextTimestamp,
      intervalSec: this.intervalSec,
      floor: this.floor,
    };
  }

  /** Restores a state taken by state() (evm_revert). */
  restore(c: ClockState): void {
    this.offsetSec = c.offsetSec;
    this.nextTimestamp = c.nextTimestamp;
    this.intervalSec = c.intervalSec;
    this.floor = c.floor;
  }

  /**
   * The next block's timestamp after a block at `parent`, consuming a set next timestamp and a set time: `exact`
   * (evm_mine's), else the set next timestamp, else the interval after the last, else the clock.
   */
  take(parent: bigint, exact?: bigint): NextTime {
    const base = this.base(parent);
    const setTime = this.floor !== undefined;
    this.floor = undefined;
    const chosen = exact ?? this.nextTimestamp;
    if (chosen !== undefined) {
      this.nextTimestamp = undefined;
      // Time goes on from the chosen timestamp, as on Hardhat and Anvil.
      this.offsetSec = chosen - wallSeconds();
      return { time: chosen, exact: true };
    }
    if (this.intervalSec !== undefined) return { time: base + this.intervalSec, exact: true };
    const now = wallSeconds() + this.offsetSec;
    // Just after anvil_setTime the block gets the set time (or a second after it), even below the head's.
    if (setTime) return { time: now < base ? base + 1n : now, exact: true };
    if (now > parent) return { time: now, exact: false };
    // Quick blocks run ahead of the wall clock (each a second after its parent at least): the clock follows the
    // chain, as Hardhat's does, so evm_increaseTime(n) then evm_mine lands n seconds after the last block.
    this.offsetSec = parent + 1n - wallSeconds();
    return { time: parent + 1n, exact: false };
  }
}
