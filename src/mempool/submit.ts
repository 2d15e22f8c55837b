// Transaction submission: CheckTx against the app, then the pool, then the journal (the hash is returned only once
// the tx is on disk), then a nudge to the engine and the pending-tx listeners.
import { Address } from '@ethereumjs/util';
import type { CheckedTx, KestrelApp } from '../app/app.ts';
import type { ExecTx } from '../app/evm/executor.ts';
import type { ChainQuery } from '../app/query.ts';
import { errorMessage, TxRejectedError } from '../errors/index.ts';
import type { JournalEntry, TxJournal } from './journal.ts';
import { MinedWaiter } from './minedWaiter.ts';
import type { TxPool } from './pool.ts';
import type { SenderRecovery } from './recovery/workers.ts';
import { encodeTx } from '../primitives/tx/encode.ts';

/** What replaying a journal did. */
export interface RestoreResult {
  restored: number;
  /** Already mined (nonce below the account's) or superseded by a replacement: the normal case after a restart. */
  settled: number;
  /** No longer admissible for another reason (price, funds, …); each is logged. */
  dropped: number;
}

/** Accepts raw transactions for inclusion. */
export class TxSubmitter {
  private readonly acceptedListeners: Array<(tx: CheckedTx) => void> = [];
  private journal?: TxJournal;
  private forward?: (tx: CheckedTx) => Promise<void>;
  private sealing?: (hash: Uint8Array) => Promise<void>;
  private recovery?: SenderRecovery;
  private readonly mined: MinedWaiter;
  /** submitRaw calls between their start and their end (accepted or refused). */
  private admitting = 0;
  /** Resolved (and cleared) when `admitting` falls back to zero. */
  private idle?: { promise: Promise<void>; resolve: () => void };

  constructor(
    private readonly app: KestrelApp,
    private readonly chain: ChainQuery,
    private readonly pool: TxPool,
    private readonly onAccepted: () => void,
  ) {
    this.mined = new MinedWaiter((fn) => app.onCommit(fn));
  }

  /** Journals every tx accepted from now on. */
  useJournal(journal: TxJournal): void {
    this.journal = journal;
  }

  /**
   * Under an external consensus engine: every accepted tx is handed to `fn` (which sends it on, or keeps it
   * queued); a tx `fn` refuses leaves the pool and its submitter gets the error.
   */
  useForwarder(fn: (tx: CheckedTx) => Promise<void>): void {
    this.forward = fn;
  }

  /** Recovers the senders of submitted txs through `r` (worker threads when a turn's batch pays for them). */
  useRecovery(r: SenderRecovery): void {
    this.recovery = r;
  }

  /** Instant sealing: `fn` resolves once the block holding a submitted tx is committed (see inclusion()). */
  useSealing(fn: (hash: Uint8Array) => Promise<void>): void {
    this.sealing = fn;
  }

  /**
   * What the send methods await after submitRaw: in instant mode, the commit of the block holding the tx (or the
   * engine going idle without it); otherwise nothing.
   */
  async inclusion(hash: Uint8Array): Promise<void> {
    await this.sealing?.(hash);
  }

  /**
   * Resolves true once `hash` is in a committed block (at once if it is already), false after `timeoutMs`
   * (eth_sendRawTransactionSync).
   */
  minedWithin(hash: Uint8Array, timeoutMs: number): Promise<boolean> {
    return this.mined.wait(hash, timeoutMs, () => this.chain.minedTx(hash) !== undefined);
  }

  /**
   * Pools a tx that was checked elsewhere (CometBFT's CheckTx on this node: its own and its peers' txs), so
   * txpool_* and pending-tx listeners see it; no journal, no forwarding (the engine has it already).
   */
  adopt(item: CheckedTx): void {
    if (this.pool.get(item.hash)) return;
    try {
      this.pool.add(item, item.stateNonce);
    } catch {
      return; // the local view is full or has a better tx for that nonce; consensus has the tx regardless
    }
    this.notifyAccepted(item);
  }

  /** Number of submitted txs still being admitted (decoded, recovered, checked or journaled). */
  get admissionsInFlight(): number {
    return this.admitting;
  }

  /** Resolves once no submitted tx is being admitted (at once if none is). */
  admissionsSettled(): Promise<void> {
    if (this.admitting === 0) return Promise.resolve();
    if (!this.idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idle = { promise, resolve };
    }
    return this.idle.promise;
  }

  /** Validates and pools a raw signed tx; returns its hash (throws TxRejectedError with geth's message). */
  async submitRaw(raw: Uint8Array): Promise<Uint8Array> {
    this.admitting++;
    try {
      return await this.admit(raw);
    } finally {
      if (--this.admitting === 0 && this.idle) {
        const { resolve } = this.idle;
        this.idle = undefined;
        resolve();
      }
    }
  }

  private async admit(raw: Uint8Array): Promise<Uint8Array> {
    const item = await this.check(raw);
    const addedAt = Date.now();
    this.pool.add(item, item.stateNonce, addedAt);
    if (this.journal) {
      try {
        await this.journal.append({ raw, addedAt });
      } catch (e) {
        this.pool.remove(item.hash);
        console.error('txpool journal write failed:', e);
        throw new TxRejectedError('journalFailed', 'transaction not accepted: the pool journal could not be written');
      }
    }
    if (this.forward) {
      try {
        await this.forward(item);
      } catch (e) {
        this.pool.remove(item.hash);
        throw e;
      }
    }
    this.onAccepted();
    this.notifyAccepted(item);
    return item.hash;
  }

  /**
   * Pools a tx whose sender was not recovered from a signature (an impersonated account's, dev toolkit): the
   * stateful checks only, and no journal record (its placeholder signature would not replay).
   */
  async submitUnsigned(item: ExecTx): Promise<Uint8Array> {
    const checked = await this.app.checkDecoded(item);
    this.pool.add(checked, checked.stateNonce);
    this.onAccepted();
    this.notifyAccepted(checked);
    return checked.hash;
  }

  /** Removes a pooled tx and rewrites the journal without it (anvil_dropTransaction); whether it was pooled. */
  async drop(hash: Uint8Array): Promise<boolean> {
    if (!this.pool.remove(hash)) return false;
    await this.journal?.compact();
    return true;
  }

  /**
   * Writes `items` as the journal's whole content, before the pool changes: evm_revert does it before the chain
   * moves back, so a crash inside the rewind leaves no journaled tx that the forgotten blocks had mined (a restart
   * on a landed revert would mine it again).
   */
  async journalOnly(items: ExecTx[]): Promise<void> {
    const now = Date.now();
    await this.journal?.rewrite(items.map((i) => ({ raw: i.encoded ?? encodeTx(i.tx), addedAt: now })));
  }

  /**
   * Replaces the pool's content with `items` re-checked against the current head (evm_revert restores the pool of
   * the snapshot), and rewrites the journal to match.
   */
  async replacePool(items: ExecTx[]): Promise<void> {
    for (const s of this.pool.content()) for (const t of [...s.pending, ...s.queued]) this.pool.remove(t.hash);
    for (const item of items) {
      try {
        const checked = await this.app.checkDecoded(item);
        this.pool.add(checked, checked.stateNonce);
      } catch (e) {
        console.warn(`txpool: 0x${Buffer.from(item.hash).toString('hex')} not restored: ${(e as Error).message}`);
      }
    }
    await this.journal?.compact();
  }

  private notifyAccepted(item: CheckedTx): void {
    for (const fn of this.acceptedListeners) {
      try {
        fn(item);
      } catch (e) {
        console.error('pending-tx listener failed:', e);
      }
    }
  }

  /**
   * CheckTx; its stateful half is repeated if a block was committed meanwhile (the sender's state nonce may have
   * moved). Decoding and signature recovery happen once.
   */
  private async check(raw: Uint8Array): Promise<CheckedTx> {
    let head = this.app.head;
    let item = await this.checkAtHead(await this.decode(raw));
    for (let attempt = 0; this.app.head !== head && attempt < 3; attempt++) {
      head = this.app.head;
      item = await this.checkAtHead(item);
    }
    return item;
  }

  /** The stateless half of CheckTx, with the sender recovered through the recovery workers when there are some. */
  private async decode(raw: Uint8Array): Promise<ExecTx> {
    if (!this.recovery) return this.app.decode(raw);
    const u = this.app.prepare(raw);
    return this.app.recovered(u, await this.recovery.recover(u.job));
  }

  /**
   * The stateful checks with the sender's account from the chain's head-state cache (the block that last moved the
   * sender's nonce left it there), read in the same step as the check: no trie walk per sender and block.
   */
  private checkAtHead(item: ExecTx): Promise<CheckedTx> {
    return this.app.checkDecoded(item, this.chain.account(item.sender, this.app.head));
  }

  /**
   * Re-admits journaled txs in their original order through the normal checks against the current state;
   * the ones that no longer pass (mined, under the minimum gas price, out of funds) are dropped with a log line.
   */
  async restore(entries: JournalEntry[]): Promise<RestoreResult> {
    let restored = 0;
    let settled = 0;
    let dropped = 0;
    for (const e of entries) {
      try {
        const item = await this.app.checkTx(e.raw);
        this.pool.add(item, item.stateNonce, e.addedAt);
        restored++;
      } catch (err) {
        // Mined txs and superseded records are the normal case after a restart; no need to list each.
        if (err instanceof TxRejectedError && (err.reason === 'nonceTooLow' || err.reason === 'alreadyKnown')) {
          settled++;
        } else {
          console.warn(`txpool: journaled tx not restored: ${errorMessage(err)}`);
          dropped++;
        }
      }
    }
    if (restored > 0) this.onAccepted();
    return { restored, settled, dropped };
  }

  /** Registers a listener called for every tx that entered the pool (pending filters, subscriptions). */
  onAcceptedTx(fn: (tx: CheckedTx) => void): void {
    this.acceptedListeners.push(fn);
  }

  /** The next usable nonce of an account, counting its pooled txs. */
  async pendingNonce(addr: Uint8Array): Promise<bigint> {
    // Forked, an account not yet fetched has the upstream's nonce, which only the app's forked read knows.
    const acc = this.app.upstream
      ? await this.app.headAccount(addr)
      : await this.chain.account(addr, this.chain.head());
    return this.pool.pendingNonce(new Address(addr).bytes, acc.nonce);
  }
}
