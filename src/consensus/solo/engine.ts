// The embedded single-validator engine. `blockTimeMs = 0` seals as soon as executable txs are pending (batching
// everything that arrived meanwhile, never an empty block); otherwise it seals every interval, empty or not.
// The dev toolkit switches between the two at run time (evm_setAutomine, evm_setIntervalMining), mines on
// demand (evm_mine) and moves the clock (DevClock: evm_increaseTime, evm_setNextBlockTimestamp, anvil_setTime, …).
import type { KestrelApp } from '../../app/app.ts';
import { StorageFailedError } from '../../errors/index.ts';
import type { StateEdit } from '../../app/stateEdits.ts';
import type { TxPool } from '../../mempool/pool.ts';
import { DevClock } from './devClock.ts';

/** How one block is made on demand. */
export interface SealRequest {
  /** Take the pool's executable txs (evm_mine does; a state edit's block does not). */
  withTxs: boolean;
  /** Exact timestamp of the block (evm_mine with a timestamp; at or after the clock's base, checked by the caller). */
  timestamp?: bigint;
  /** State edits applied before the txs (anvil_setBalance, …). */
  edits?: readonly StateEdit[];
}

/** The submit path's admissions, which instant sealing lets land before it seals (see SoloEngine.useAdmissions). */
export interface Admissions {
  /** Submitted txs still being admitted (recovered, checked or journaled). */
  readonly admissionsInFlight: number;
  /** Resolves once none is. */
  admissionsSettled(): Promise<void>;
}

/**
 * Longest an instant-mode block waits for the admissions in flight when it is triggered: long enough for a journal
 * fdatasync on a local disk, short enough that a stream of senders never holds a block back for long.
 */
const ADMISSION_WAIT_MS = 5;

/** Drives the app: decides when to make a block and which txs go in. */
export class SoloEngine {
  private timer?: NodeJS.Timeout;
  private producing?: Promise<void>;
  private again = false;
  private stopped = false;
  /** Set once a block could not be written: no block is made after it (see StorageFailedError). */
  private storageFailed: StorageFailedError | undefined;
  private automine: boolean;
  private intervalMs: number;
  private admissions?: Admissions;
  private admissionWaitMs = ADMISSION_WAIT_MS;
  /** Block timestamps: the wall clock as the dev toolkit moves it. */
  readonly time = new DevClock();

  constructor(
    private readonly app: KestrelApp,
    private readonly pool: TxPool,
    blockTimeMs: number,
  ) {
    this.automine = blockTimeMs === 0;
    this.intervalMs = blockTimeMs;
  }

  /**
   * On a fresh chain, seals an empty block 1 at genesis time, as CometBFT's first block: Cosmos clients (cosmjs)
   * query at a height of at least 1, and instant mode would otherwise stay at genesis until the first tx.
   */
  async sealFirstBlock(genesisTime: bigint): Promise<void> {
    if (this.app.head.number !== 0n) return;
    await this.exclusive(async () => {
      if (this.app.head.number !== 0n) return;
      await this.app.finalizeBlock({ txs: [], time: genesisTime, sameSecond: true });
      await this.app.commit();
    });
  }

  /**
   * In instant mode, a block triggered while other submitted txs are still being admitted waits (at most
   * ADMISSION_WAIT_MS) for them, so they share it instead of each concurrent burst of sends splitting over two or
   * three blocks: every block has a fixed cost (system calls, header, receipts root, the state's carry), and a lone
   * send finds nothing in flight and is sealed at once. `maxWaitMs` bounds the wait (tests set it).
   */
  useAdmissions(a: Admissions, maxWaitMs = ADMISSION_WAIT_MS): void {
    this.admissions = a;
    this.admissionWaitMs = maxWaitMs;
  }

  /** Starts interval sealing (instant mode needs no timer). */
  start(): void {
    this.armTimer();
  }

  private armTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.intervalMs > 0 && !this.stopped) this.timer = setInterval(() => this.trigger(true), this.intervalMs);
  }

  /** Called when a tx entered the pool: in instant mode, seal soon (coalescing concurrent arrivals). */
  notify(): void {
    if (this.automine) this.trigger(false);
  }

  /** Whether each tx is mined as it arrives (hardhat_getAutomine). */
  get isAutomine(): boolean {
    return this.automine;
  }

  /** evm_setAutomine: on, pending txs are sealed at once and every later send; off, they wait for evm_mine. */
  setAutomine(on: boolean): void {
    this.automine = on;
    if (on && this.pool.hasPending()) this.trigger(false);
  }

  /** evm_setIntervalMining: seal every `ms` (empty or not); 0 stops interval sealing. */
  setIntervalMining(ms: number): void {
    this.intervalMs = ms;
    this.armTimer();
  }

  /** The next block's timestamp (see DevClock.take); `exact` is evm_mine's. */
  private nextTime(exact?: bigint): { time: bigint; exactTime: boolean } {
    const next = this.time.take(this.app.head.header.timestamp, exact);
    return { time: next.time, exactTime: next.exact };
  }

  private trigger(allowEmpty: boolean): void {
    if (this.stopped || this.storageFailed) return;
    if (this.producing) {
      this.again = true;
      return;
    }
    this.producing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => (allowEmpty ? undefined : this.admitted()))
      .then(() => this.produce(allowEmpty))
      .catch((e) => {
        // A failed store write stops production for good (no retry loop); reads go on, a restart resumes.
        if (e instanceof StorageFailedError) {
          if (this.storageFailed === undefined) console.error(`block production stopped: ${e.message}`);
          this.storageFailed = e;
          return;
        }
        console.error('block production failed:', e);
      })
      .finally(() => {
        this.producing = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          if (this.automine && this.pool.hasPending()) this.trigger(false);
        }
      });
  }

  /** Waits (bounded) for the txs being admitted now, when there are some. */
  private async admitted(): Promise<void> {
    const a = this.admissions;
    if (!a || a.admissionsInFlight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      a.admissionsSettled(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, this.admissionWaitMs))),
    ]);
    clearTimeout(timer);
  }

  private async produce(allowEmpty: boolean): Promise<void> {
    // By effective tip at the next base fee, each sender in nonce order; txs the executor finds invalid are
    // skipped there and dropped (with a log line) by the pool in onCommitted.
    const txs = this.pool.executable(this.app.head.header.gasLimit, {
      baseFee: this.app.nextBaseFee(),
      minGasPrice: this.app.minGasPrice,
    });
    if (txs.length === 0 && !allowEmpty) return;
    const res = await this.app.finalizeBlock({ txs, ...this.nextTime() });
    const committed = await this.app.commit();
    this.pool.onCommitted(committed, res.rejected);
  }

  /**
   * Runs `fn` while no block is being produced and none starts (the dev toolkit's mining, state edits and
   * rewinds); arrivals meanwhile are sealed after it, as usual.
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.producing) await this.producing;
    if (this.stopped) throw new Error('the node is stopping');
    let result!: T;
    const run = fn().then((r) => void (result = r));
    this.producing = run
      .catch(() => {})
      .finally(() => {
        this.producing = undefined;
        if (this.automine && this.pool.hasPending()) this.trigger(false);
      });
    await run;
    return result;
  }

  /** Makes one block now (evm_mine, or the block of a state edit); call inside exclusive(). */
  async seal(req: SealRequest): Promise<void> {
    const txs = req.withTxs
      ? this.pool.executable(this.app.head.header.gasLimit, {
          baseFee: this.app.nextBaseFee(),
          minGasPrice: this.app.minGasPrice,
        })
      : [];
    // A state edit's block takes its parent's timestamp: an edit does not move time (on Anvil it makes no block).
    const time = req.withTxs ? this.nextTime(req.timestamp) : { time: this.app.head.header.timestamp, exactTime: true };
    const res = await this.app.finalizeBlock({ txs, ...time, edits: req.edits });
    const committed = await this.app.commit();
    this.pool.onCommitted(committed, res.rejected);
  }

  /**
   * Instant mode: resolves once `hash` has left the pool (mined, or dropped as invalid) or sealing has gone idle
   * (the tx waits behind a nonce gap or under the base fee); resolves at once otherwise. The send methods await
   * it, so a client finds the receipt as soon as the hash comes back (ethers' wait() otherwise waits for a next
   * block that instant mode makes only when another tx arrives). Concurrent sends still share blocks.
   */
  async settled(hash: Uint8Array): Promise<void> {
    if (!this.automine) return;
    while (this.producing && this.pool.get(hash)) await this.producing;
  }

  /** Stops sealing and waits for a block in progress to finish committing. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    while (this.producing) await this.producing;
  }
}
