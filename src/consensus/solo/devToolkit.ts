// The dev toolkit behind the evm_/anvil_/hardhat_ methods (only under --dev or app.toml [dev] toolkit = true):
// mining on demand, the clock, snapshots that rewind the chain durably, state edits, impersonation. State edits
// get a block of their own (an empty block whose state carries the edit), so every block's stateRoot stays the
// root of its state and the archive stays consistent.
import type { TypedTransaction } from '@ethereumjs/tx';
import { decodeTransaction } from '../../primitives/tx/decode.ts';
import type { KestrelApp } from '../../app/app.ts';
import type { ExecTx } from '../../app/evm/executor.ts';
import type { StateEdit } from '../../app/stateEdits.ts';
import { InvalidParamsError } from '../../errors/index.ts';
import type { TxPool } from '../../mempool/pool.ts';
import type { TxSubmitter } from '../../mempool/submit.ts';
import { bytesToBigint } from '../../primitives/hex.ts';
import type { AnvilState } from '../../app/dump/anvilState.ts';
import { loadEdits } from '../../app/dump/anvilState.ts';
import type { ClockState } from './devClock.ts';
import type { SoloEngine } from './engine.ts';

/** What evm_revert returns to. */
interface Snapshot {
  head: bigint;
  clock: ClockState;
  pool: ExecTx[];
}

/** The most blocks one evm_mine / hardhat_mine call may make (a typo must not make a billion blocks). */
export const MAX_MINE_BLOCKS = 100_000n;

const key = (a: Uint8Array) => Buffer.from(a).toString('hex');

/** Dev-chain controls over the solo engine, the app and the pool. */
export class DevToolkit {
  private readonly snapshots = new Map<bigint, Snapshot>();
  private nextSnapshot = 1n;
  private readonly impersonated = new Set<string>();
  private dumper?: () => Promise<AnvilState>;
  private autoImpersonate = false;

  constructor(
    private readonly app: KestrelApp,
    private readonly engine: SoloEngine,
    private readonly pool: TxPool,
    private readonly txs: TxSubmitter,
  ) {
    this.initialClock = engine.time.state();
  }

  /** The clock as the node started (anvil_reset goes back to it). */
  private readonly initialClock: ClockState;

  /** hardhat_getAutomine / anvil_getAutomine. */
  get automine(): boolean {
    return this.engine.isAutomine;
  }

  /** evm_setAutomine. */
  setAutomine(on: boolean): void {
    this.engine.setAutomine(on);
  }

  /** evm_setIntervalMining (milliseconds; 0 stops it). */
  setIntervalMining(ms: number): void {
    this.engine.setIntervalMining(ms);
  }

  /** evm_increaseTime: returns the total offset in seconds. */
  increaseTime(seconds: bigint): bigint {
    return this.engine.time.increaseTime(seconds);
  }

  /** evm_setNextBlockTimestamp: at or after the head's timestamp (or the time anvil_setTime set), as on Anvil. */
  setNextBlockTimestamp(ts: bigint): void {
    this.checkNotBeforeLast(ts);
    this.engine.time.setNextBlockTimestamp(ts);
  }

  /** anvil_setBlockTimestampInterval: each later block `seconds` after the one before. */
  setBlockTimestampInterval(seconds: bigint): void {
    this.engine.time.setInterval(seconds);
  }

  /** anvil_removeBlockTimestampInterval: whether an interval was set. */
  removeBlockTimestampInterval(): boolean {
    return this.engine.time.removeInterval();
  }

  /** anvil_setTime: the clock reads `ts` (earlier than the head's too); the seconds from the wall clock to it. */
  setTime(ts: bigint): bigint {
    return this.engine.time.setTime(ts);
  }

  /** Anvil's rule for an exact timestamp: not below the last block's (or the set time); equal is allowed. */
  private checkNotBeforeLast(ts: bigint): void {
    if (ts < this.engine.time.base(this.app.head.header.timestamp))
      throw new InvalidParamsError(`Timestamp error: ${ts} is lower than previous block's timestamp`);
  }

  /**
   * evm_mine / hardhat_mine / anvil_mine: `blocks` blocks, the first taking the pending txs; `timestamp` fixes the
   * first block's time, `interval` the seconds between the blocks after it (Hardhat's), `advanceEach` moves the clock
   * that many seconds before each block (Anvil's); otherwise the clock decides.
   */
  async mine(
    blocks: bigint,
    opts: { timestamp?: bigint; interval?: bigint; advanceEach?: bigint } = {},
  ): Promise<void> {
    if (blocks < 0n || blocks > MAX_MINE_BLOCKS)
      throw new InvalidParamsError(`blocks must be between 0 and ${MAX_MINE_BLOCKS}`);
    if (opts.timestamp !== undefined) this.checkNotBeforeLast(opts.timestamp);
    await this.engine.exclusive(async () => {
      for (let i = 0n; i < blocks; i++) {
        let timestamp = i === 0n ? opts.timestamp : undefined;
        if (i > 0n && opts.interval !== undefined) timestamp = this.app.head.header.timestamp + opts.interval;
        if (opts.advanceEach !== undefined) this.engine.time.increaseTime(opts.advanceEach);
        await this.engine.seal({ withTxs: true, timestamp });
      }
    });
  }

  /** evm_snapshot: an id for evm_revert (hex quantity, from 0x1). */
  snapshot(): bigint {
    const id = this.nextSnapshot++;
    const pool = this.pool
      .content()
      .flatMap((s) => [...s.pending, ...s.queued])
      .map(({ tx, sender, hash }) => ({ tx, sender, hash }));
    this.snapshots.set(id, { head: this.app.head.number, clock: this.engine.time.state(), pool });
    return id;
  }

  /**
   * evm_revert: the chain goes back to the snapshot's head (durably: see KestrelApp.rewind), the pool and the
   * clock to what they were; that snapshot and every later one are used up. False for an unknown id.
   */
  async revert(id: bigint): Promise<boolean> {
    const snap = this.snapshots.get(id);
    if (!snap) return false;
    for (const k of [...this.snapshots.keys()]) if (k >= id) this.snapshots.delete(k);
    await this.engine.exclusive(async () => {
      await this.txs.journalOnly(snap.pool);
      await this.app.rewind(snap.head);
      await this.txs.replacePool(snap.pool);
      this.engine.time.restore(snap.clock);
    });
    return true;
  }

  /**
   * anvil_reset / hardhat_reset: the chain back to its first block (genesis, or the fork block), or re-forked from
   * `refork`'s upstream block; the pool, the journal, the snapshots and the clock start over.
   */
  async reset(refork?: { url?: string; blockNumber?: bigint }): Promise<void> {
    await this.engine.exclusive(async () => {
      await this.txs.journalOnly([]);
      await this.app.reset(refork);
      await this.txs.replacePool([]);
      this.snapshots.clear();
      this.engine.time.restore(this.initialClock);
    });
  }

  /** anvil_setBalance / hardhat_setBalance (an absent account is created). */
  setBalance(addr: Uint8Array, balance: bigint): Promise<void> {
    return this.edit({ address: addr, balance });
  }

  /** anvil_setNonce / hardhat_setNonce (an absent account is created). */
  setNonce(addr: Uint8Array, nonce: bigint): Promise<void> {
    return this.edit({ address: addr, nonce });
  }

  /** anvil_setCode / hardhat_setCode (an absent account is created). */
  setCode(addr: Uint8Array, code: Uint8Array): Promise<void> {
    return this.edit({ address: addr, code });
  }

  /** anvil_setStorageAt / hardhat_setStorageAt: `slot` and `value` are 32-byte words (an absent account is created). */
  setStorageAt(addr: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    return this.edit({ address: addr, storage: [[slot, value]] });
  }

  /** Supplies the head state in Anvil's dump format (the node records what a dump needs; see app/dump). */
  useStateDump(dump: () => Promise<AnvilState>): void {
    this.dumper = dump;
  }

  /** anvil_dumpState, --dump-state: the head state as Anvil's JSON; a block in progress finishes first. */
  dumpState(): Promise<AnvilState> {
    const dump = this.dumper;
    if (!dump) throw new InvalidParamsError('state dumps are not recorded on this node');
    return this.engine.exclusive(dump);
  }

  /** anvil_loadState, --load-state: a dump's accounts (Anvil's JSON) written over the state, in one block. */
  async loadState(json: unknown): Promise<void> {
    const edits = loadEdits(json);
    if (edits.length === 0) return;
    await this.engine.exclusive(() => this.engine.seal({ withTxs: false, edits }));
  }

  /** A state edit takes effect in a block of its own, as soon as it returns. */
  private edit(edit: StateEdit): Promise<void> {
    return this.engine.exclusive(() => this.engine.seal({ withTxs: false, edits: [edit] }));
  }

  /** anvil_/hardhat_impersonateAccount: eth_sendTransaction from `addr` without its key. */
  impersonate(addr: Uint8Array): void {
    this.impersonated.add(key(addr));
  }

  /** anvil_/hardhat_stopImpersonatingAccount. */
  stopImpersonating(addr: Uint8Array): void {
    this.impersonated.delete(key(addr));
  }

  /** anvil_autoImpersonateAccount, --auto-impersonate: every address sends without its key while on. */
  setAutoImpersonate(on: boolean): void {
    this.autoImpersonate = on;
  }

  /** Whether eth_sendTransaction may send from `addr` without its key. */
  isImpersonated(addr: Uint8Array): boolean {
    return this.autoImpersonate || this.impersonated.has(key(addr));
  }

  /**
   * An impersonated sender's tx: a placeholder signature (r = the sender's address + 1, s = 1) keeps each sender's
   * hash distinct, and the sender is attached rather than recovered.
   */
  impersonatedTx(unsigned: TypedTransaction, sender: Uint8Array): ExecTx {
    const r = bytesToBigint(sender) + 1n;
    const placeholder = (
      unsigned as unknown as { addSignature(v: bigint, r: bigint, s: bigint, convertV?: boolean): TypedTransaction }
    ).addSignature(0n, r, 1n, true);
    const encoded = placeholder.serialize();
    const { tx, hash } = decodeTransaction(encoded);
    return { tx, sender, hash, encoded };
  }

  /** anvil_/hardhat_dropTransaction: removes a pooled tx (and its journal record); whether it was there. */
  dropTransaction(hash: Uint8Array): Promise<boolean> {
    return this.txs.drop(hash);
  }
}
