// The transaction pool: per-sender nonce order, `pending` = executable from the account's state nonce,
// `queued` = beyond a nonce gap. Same-nonce replacement needs a 10% bump of both fee caps (geth's rule).
import type { CommittedBlock } from '../app/app.ts';
import type { ExecTx } from '../app/evm/executor.ts';
import { feeCap, tipCap } from '../app/evm/validate.ts';
import { TxRejectedError } from '../errors/index.ts';

/** Pool bounds. */
export interface PoolLimits {
  maxTxs: number;
  maxPerSender: number;
  priceBumpPercent: bigint;
}

export const DEFAULT_POOL_LIMITS: PoolLimits = { maxTxs: 10_000, maxPerSender: 1_000, priceBumpPercent: 10n };

/** A pooled transaction. */
export interface PoolTx extends ExecTx {
  addedAt: number;
}

interface SenderQueue {
  /** The sender's nonce in the latest committed state. */
  stateNonce: bigint;
  txs: Map<bigint, PoolTx>;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** In-memory transaction pool keyed by sender and nonce, with a hash index. */
export class TxPool {
  private readonly senders = new Map<string, SenderQueue>();
  private readonly byHash = new Map<string, PoolTx>();

  constructor(private readonly limits: PoolLimits = DEFAULT_POOL_LIMITS) {}

  /** Adds a checked tx; `stateNonce` is the sender's committed nonce. Returns where it landed. */
  add(item: ExecTx, stateNonce: bigint): 'pending' | 'queued' {
    const h = hex(item.hash);
    if (this.byHash.has(h)) throw new TxRejectedError('already known');
    const key = hex(item.sender);
    let q = this.senders.get(key);
    if (!q) {
      q = { stateNonce, txs: new Map() };
      this.senders.set(key, q);
    }
    q.stateNonce = stateNonce;
    const existing = q.txs.get(item.tx.nonce);
    if (existing) {
      const bump = 100n + this.limits.priceBumpPercent;
      if (feeCap(item.tx) * 100n < feeCap(existing.tx) * bump || tipCap(item.tx) * 100n < tipCap(existing.tx) * bump) {
        throw new TxRejectedError('replacement transaction underpriced');
      }
      this.byHash.delete(hex(existing.hash));
    } else {
      if (this.byHash.size >= this.limits.maxTxs) throw new TxRejectedError('txpool is full');
      if (q.txs.size >= this.limits.maxPerSender) throw new TxRejectedError('account limit exceeded');
    }
    const pooled: PoolTx = { ...item, addedAt: Date.now() };
    q.txs.set(item.tx.nonce, pooled);
    this.byHash.set(h, pooled);
    return item.tx.nonce <= this.pendingNonce(item.sender, stateNonce) - 1n ? 'pending' : 'queued';
  }

  /** A pooled tx by hash. */
  get(hash: Uint8Array): PoolTx | undefined {
    return this.byHash.get(hex(hash));
  }

  /** The next nonce the sender can use: the first gap at or above its state nonce. */
  pendingNonce(sender: Uint8Array, stateNonce: bigint): bigint {
    const q = this.senders.get(hex(sender));
    let n = stateNonce;
    if (!q) return n;
    while (q.txs.has(n)) n++;
    return n;
  }

  /** Number of pending (executable) and queued txs. */
  counts(): { pending: number; queued: number } {
    let pending = 0;
    for (const q of this.senders.values()) {
      let n = q.stateNonce;
      while (q.txs.has(n)) {
        pending++;
        n++;
      }
    }
    return { pending, queued: this.byHash.size - pending };
  }

  /** True when at least one tx is executable now. */
  hasPending(): boolean {
    for (const q of this.senders.values()) if (q.txs.has(q.stateNonce)) return true;
    return false;
  }

  /**
   * Executable txs for the next block: each sender's run from its state nonce, merged across senders by tip
   * (highest first) while keeping every sender's nonce order, up to `gasLimit` of declared gas.
   */
  executable(gasLimit: bigint): ExecTx[] {
    const runs: PoolTx[][] = [];
    for (const q of this.senders.values()) {
      const run: PoolTx[] = [];
      let n = q.stateNonce;
      for (let t = q.txs.get(n); t; t = q.txs.get(++n)) run.push(t);
      if (run.length) runs.push(run);
    }
    const heads = runs.map((r) => ({ run: r, i: 0 }));
    const out: ExecTx[] = [];
    let gas = 0n;
    while (heads.length) {
      let best = 0;
      for (let k = 1; k < heads.length; k++) {
        const a = heads[k]!.run[heads[k]!.i]!;
        const b = heads[best]!.run[heads[best]!.i]!;
        if (tipCap(a.tx) > tipCap(b.tx) || (tipCap(a.tx) === tipCap(b.tx) && a.addedAt < b.addedAt)) best = k;
      }
      const h = heads[best]!;
      const tx = h.run[h.i]!;
      if (gas + tx.tx.gasLimit > gasLimit) {
        heads.splice(best, 1); // this sender's later txs cannot go before this one
        continue;
      }
      gas += tx.tx.gasLimit;
      out.push(tx);
      if (++h.i >= h.run.length) heads.splice(best, 1);
    }
    return out;
  }

  /** Removes mined and invalid txs after a commit and advances the senders' state nonces. */
  onCommitted(c: CommittedBlock, rejected: Array<{ hash: Uint8Array; error: string }>): void {
    c.block.txs.forEach((tx, i) => {
      const key = hex(c.block.senders[i]!);
      const q = this.senders.get(key);
      this.byHash.delete(hex(c.block.txHashes[i]!));
      if (!q) return;
      // The pooled tx at this nonce may be a replacement that arrived while the block was built: drop it too.
      this.drop(q, tx.nonce);
      if (tx.nonce + 1n > q.stateNonce) q.stateNonce = tx.nonce + 1n;
      for (const n of q.txs.keys()) if (n < q.stateNonce) this.drop(q, n);
      if (q.txs.size === 0) this.senders.delete(key);
    });
    for (const r of rejected) {
      const t = this.byHash.get(hex(r.hash));
      if (!t || r.error === 'exceeds block gas limit') continue;
      console.warn(`txpool: dropping ${'0x' + hex(r.hash)}: ${r.error}`);
      const key = hex(t.sender);
      const q = this.senders.get(key);
      if (q) {
        this.drop(q, t.tx.nonce);
        if (q.txs.size === 0) this.senders.delete(key);
      }
    }
  }

  private drop(q: SenderQueue, nonce: bigint): void {
    const t = q.txs.get(nonce);
    if (!t) return;
    q.txs.delete(nonce);
    this.byHash.delete(hex(t.hash));
  }
}
