// The transaction pool: per-sender nonce order, `pending` = the run executable from the account's state nonce,
// `queued` = beyond a nonce gap. Same-nonce replacement needs a bump of both fee caps. Bounded like geth's pool
// (pending and queued slots per account and in total); when a bound is reached the cheapest tx of another
// sender is evicted, or the newcomer is refused. It owns no I/O: the journal and the expiry timer sit beside it.
import type { CommittedBlock } from '../app/app.ts';
import type { ExecTx, Rejection } from '../app/evm/executor.ts';
import { TxRejectedError } from '../errors/index.ts';
import { comparePrice, DEFAULT_POOL_LIMITS, isEnoughBump, type PoolLimits } from './limits.ts';
import { selectForBlock, type SelectRules } from './select.ts';
import { bareHex } from '../primitives/hex.ts';

export { DEFAULT_POOL_LIMITS, type PoolLimits } from './limits.ts';

/** A pooled transaction. */
export interface PoolTx extends ExecTx {
  /** When it entered the pool (ms since epoch); queued txs expire `lifetimeMs` after it. */
  addedAt: number;
}

/** One sender's pooled txs, split as the RPC shows them, each list in nonce order. */
export interface SenderTxs {
  sender: Uint8Array;
  pending: PoolTx[];
  queued: PoolTx[];
}

interface SenderQueue {
  sender: Uint8Array;
  /** The sender's nonce in the latest state the pool has seen (never goes back). */
  stateNonce: bigint;
  /** Length of the contiguous run of txs from stateNonce: these are pending, the rest queued. */
  run: number;
  txs: Map<bigint, PoolTx>;
}

/** Why a tx left the pool other than by being mined. */
export type DropReason = 'evicted' | 'expired' | 'invalid' | 'replaced' | 'removed';

const short = (t: PoolTx) => `0x${bareHex(t.hash)}`;

/** In-memory transaction pool keyed by sender and nonce, with a hash index and running pending/queued counts. */
export class TxPool {
  private readonly senders = new Map<string, SenderQueue>();
  private readonly byHash = new Map<string, PoolTx>();
  private pendingTotal = 0;
  private readonly limits: PoolLimits;

  constructor(
    limits: Partial<PoolLimits> = {},
    private readonly log: (line: string) => void = (l) => console.warn(l),
  ) {
    this.limits = { ...DEFAULT_POOL_LIMITS, ...limits };
  }

  /** The bounds this pool enforces. */
  get bounds(): Readonly<PoolLimits> {
    return this.limits;
  }

  /**
   * Adds a checked tx; `stateNonce` is the sender's nonce in the state it was checked against. Returns where it
   * landed. Throws TxRejectedError with geth's message (already known, replacement transaction underpriced,
   * transaction underpriced / txpool is full at a bound, account limit exceeded).
   */
  add(item: ExecTx, stateNonce: bigint, addedAt = Date.now()): 'pending' | 'queued' {
    const h = bareHex(item.hash);
    if (this.byHash.has(h)) throw new TxRejectedError('alreadyKnown', 'already known');
    const key = bareHex(item.sender);
    const q = this.senders.get(key) ?? { sender: item.sender, stateNonce, run: 0, txs: new Map<bigint, PoolTx>() };
    if (stateNonce > q.stateNonce) this.advance(q, stateNonce);
    const nonce = item.tx.nonce;
    if (nonce < q.stateNonce) throw new TxRejectedError('nonceTooLow', 'nonce too low');
    const pooled: PoolTx = { ...item, addedAt };
    const existing = q.txs.get(nonce);
    if (existing) {
      if (!isEnoughBump(existing.tx, item.tx, this.limits.priceBumpPercent)) {
        throw new TxRejectedError('replacementUnderpriced', 'replacement transaction underpriced');
      }
      this.byHash.delete(bareHex(existing.hash));
      q.txs.set(nonce, pooled);
      this.byHash.set(h, pooled);
      return nonce < q.stateNonce + BigInt(q.run) ? 'pending' : 'queued';
    }
    const end = q.stateNonce + BigInt(q.run);
    const victims = nonce === end ? this.planPending(q, item, nonce) : this.planQueued(q, item);
    for (const v of victims) {
      this.log(`txpool: evicting ${short(v)} (pool full; a better-paying tx arrived)`);
      this.removeTx(v);
    }
    if (!this.senders.has(key)) this.senders.set(key, q);
    q.txs.set(nonce, pooled);
    this.byHash.set(h, pooled);
    if (nonce === q.stateNonce + BigInt(q.run)) this.extendRun(q);
    return nonce < q.stateNonce + BigInt(q.run) ? 'pending' : 'queued';
  }

  /** Txs to evict so that `item` (and the queued txs it promotes) fit under the pending bounds. */
  private planPending(q: SenderQueue, item: ExecTx, nonce: bigint): PoolTx[] {
    let promoted = 1;
    while (q.txs.has(nonce + BigInt(promoted))) promoted++;
    let need = this.pendingTotal + promoted - this.limits.globalSlots;
    if (need <= 0) return [];
    const others = [...this.senders.values()].filter((s) => s !== q && s.run > 0);
    const runs = new Map(others.map((s) => [s, s.run]));
    const victims: PoolTx[] = [];
    const tail = (s: SenderQueue) => s.txs.get(s.stateNonce + BigInt(runs.get(s)! - 1))!;
    // geth's fairness first: accounts holding more than their guaranteed slots give up their highest nonces.
    while (need > 0) {
      let big: SenderQueue | undefined;
      for (const s of others)
        if (runs.get(s)! > this.limits.accountSlots && (!big || runs.get(s)! > runs.get(big)!)) big = s;
      if (!big) break;
      victims.push(tail(big));
      runs.set(big, runs.get(big)! - 1);
      need--;
    }
    while (need > 0) {
      let cheapest: SenderQueue | undefined;
      for (const s of others)
        if (runs.get(s)! > 0 && (!cheapest || comparePrice(tail(s).tx, tail(cheapest).tx) < 0)) cheapest = s;
      if (!cheapest) throw new TxRejectedError('poolFull', 'txpool is full');
      if (comparePrice(item.tx, tail(cheapest).tx) <= 0)
        throw new TxRejectedError('underpriced', 'transaction underpriced');
      victims.push(tail(cheapest));
      runs.set(cheapest, runs.get(cheapest)! - 1);
      need--;
    }
    return victims;
  }

  /** Txs to evict so that a queued `item` fits under the queued bounds (it never displaces pending txs). */
  private planQueued(q: SenderQueue, item: ExecTx): PoolTx[] {
    if (q.txs.size - q.run >= this.limits.accountQueue)
      throw new TxRejectedError('accountLimit', 'account limit exceeded');
    if (this.queuedTotal() < this.limits.globalQueue) return [];
    let victim: PoolTx | undefined;
    for (const s of this.senders.values()) {
      if (s === q || s.txs.size === s.run) continue;
      const last = this.lastQueued(s);
      if (!victim || comparePrice(last.tx, victim.tx) < 0) victim = last;
    }
    if (!victim) throw new TxRejectedError('poolFull', 'txpool is full');
    if (comparePrice(item.tx, victim.tx) <= 0) throw new TxRejectedError('underpriced', 'transaction underpriced');
    return [victim];
  }

  private lastQueued(s: SenderQueue): PoolTx {
    let best: PoolTx | undefined;
    for (const t of s.txs.values()) if (!best || t.tx.nonce > best.tx.nonce) best = t;
    return best!;
  }

  /** A pooled tx by hash. */
  get(hash: Uint8Array): PoolTx | undefined {
    return this.byHash.get(bareHex(hash));
  }

  /** Number of pooled txs. */
  get size(): number {
    return this.byHash.size;
  }

  /** The next nonce the sender can use: the first gap at or above its state nonce. */
  pendingNonce(sender: Uint8Array, stateNonce: bigint): bigint {
    const q = this.senders.get(bareHex(sender));
    let n = q && q.stateNonce > stateNonce ? q.stateNonce : stateNonce;
    if (!q) return n;
    while (q.txs.has(n)) n++;
    return n;
  }

  /** Number of pending (executable) and queued txs. */
  counts(): { pending: number; queued: number } {
    return { pending: this.pendingTotal, queued: this.queuedTotal() };
  }

  private queuedTotal(): number {
    return this.byHash.size - this.pendingTotal;
  }

  /** True when at least one tx is executable now. */
  hasPending(): boolean {
    return this.pendingTotal > 0;
  }

  /** Every sender's txs split into pending and queued, in nonce order (txpool_content). */
  content(): SenderTxs[] {
    return [...this.senders.values()].map((q) => this.split(q));
  }

  /** One sender's txs (txpool_contentFrom); empty lists when it has none. */
  contentFrom(sender: Uint8Array): SenderTxs {
    const q = this.senders.get(bareHex(sender));
    return q ? this.split(q) : { sender, pending: [], queued: [] };
  }

  private split(q: SenderQueue): SenderTxs {
    const sorted = [...q.txs.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : 1));
    return { sender: q.sender, pending: sorted.slice(0, q.run), queued: sorted.slice(q.run) };
  }

  /**
   * Executable txs for the next block: each sender's run from its state nonce, merged across senders by
   * effective tip (highest first) while keeping every sender's nonce order, up to `gasLimit` of declared gas.
   * Txs whose fee cap is under the base fee or the minimum gas price wait, with the sender's later nonces.
   */
  executable(gasLimit: bigint, rules: Omit<SelectRules, 'gasLimit'> = {}): ExecTx[] {
    const runs: PoolTx[][] = [];
    for (const q of this.senders.values()) {
      if (q.run === 0) continue;
      const run: PoolTx[] = [];
      for (let i = 0n; i < BigInt(q.run); i++) run.push(q.txs.get(q.stateNonce + i)!);
      runs.push(run);
    }
    return selectForBlock(runs, { ...rules, gasLimit });
  }

  /**
   * After a commit: removes mined txs (and stale same-nonce replacements), advances the senders' state nonces
   * and drops, with a log line, each sender's first tx the block builder found invalid; that sender's later txs
   * stay, queued behind the gap, until a valid tx fills it.
   */
  onCommitted(c: CommittedBlock, rejected: Rejection[]): void {
    const next = new Map<string, bigint>();
    c.block.txs.forEach((tx, i) => {
      const key = bareHex(c.block.senders[i]!);
      const n = tx.nonce + 1n;
      if ((next.get(key) ?? 0n) < n) next.set(key, n);
    });
    for (const [key, n] of next) {
      const q = this.senders.get(key);
      if (q && n > q.stateNonce) this.advance(q, n);
    }
    const firstBad = new Map<string, { t: PoolTx; error: string }>();
    for (const r of rejected) {
      const t = this.byHash.get(bareHex(r.hash));
      // Not this tx's fault: the block was full (gas, or EIP-7934's size); it stays pooled for the next one.
      if (!t || r.error.reason === 'gasLimitAboveBlock' || r.error.reason === 'blockSizeAboveCap') continue;
      const key = bareHex(t.sender);
      const seen = firstBad.get(key);
      if (!seen || t.tx.nonce < seen.t.tx.nonce) firstBad.set(key, { t, error: r.error.message });
    }
    for (const { t, error } of firstBad.values()) {
      // ethereumjs appends a dump of the VM, block and tx to its messages: keep the reason only.
      this.log(`txpool: dropping ${short(t)}: ${error.replace(/\s*\(vm hf=[\s\S]*$/, '')}`);
      this.removeTx(t);
    }
  }

  /** Removes queued txs older than the lifetime; returns how many went. */
  expireQueued(now = Date.now()): number {
    const cutoff = now - this.limits.lifetimeMs;
    const old: PoolTx[] = [];
    for (const q of this.senders.values()) {
      if (q.txs.size === q.run) continue;
      const end = q.stateNonce + BigInt(q.run);
      for (const t of q.txs.values()) if (t.tx.nonce > end && t.addedAt <= cutoff) old.push(t);
    }
    for (const t of old) this.removeTx(t);
    if (old.length > 0)
      this.log(
        `txpool: ${old.length} queued tx(s) expired (waited longer than ${this.limits.lifetimeMs} ms for a nonce gap to fill)`,
      );
    return old.length;
  }

  /** Removes one tx by hash (e.g. when its journal record could not be written); later nonces become queued. */
  remove(hash: Uint8Array): boolean {
    const t = this.byHash.get(bareHex(hash));
    if (!t) return false;
    this.removeTx(t);
    return true;
  }

  private removeTx(t: PoolTx): void {
    const key = bareHex(t.sender);
    const q = this.senders.get(key);
    this.byHash.delete(bareHex(t.hash));
    if (!q || q.txs.get(t.tx.nonce) !== t) return;
    q.txs.delete(t.tx.nonce);
    const idx = Number(t.tx.nonce - q.stateNonce);
    if (idx < q.run) {
      // The txs behind the removed one are no longer executable: they are demoted to queued.
      this.pendingTotal -= q.run - idx;
      q.run = idx;
    }
    if (q.txs.size === 0) this.senders.delete(key);
  }

  /** Moves a sender's state nonce forward: txs below it are gone (mined or replaced), the run is recounted. */
  private advance(q: SenderQueue, stateNonce: bigint): void {
    for (const [n, t] of q.txs) {
      if (n < stateNonce) {
        q.txs.delete(n);
        this.byHash.delete(bareHex(t.hash));
      }
    }
    this.pendingTotal -= q.run;
    q.run = 0;
    q.stateNonce = stateNonce;
    this.extendRun(q);
    if (q.txs.size === 0) this.senders.delete(bareHex(q.sender));
  }

  private extendRun(q: SenderQueue): void {
    while (q.txs.has(q.stateNonce + BigInt(q.run))) {
      q.run++;
      this.pendingTotal++;
    }
  }
}
