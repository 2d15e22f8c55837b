// Waits for a transaction to land in a committed block (eth_sendRawTransactionSync): one commit listener wakes the
// waiters whose hashes the block holds, so a wait costs nothing per block beyond a map lookup per tx.
import type { CommittedBlock } from '../app/app.ts';

const key = (hash: Uint8Array) => Buffer.from(hash).toString('hex');

/** Waiters for txs to be mined, woken by the app's commits. */
export class MinedWaiter {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(onCommit: (fn: (c: CommittedBlock) => void) => void) {
    onCommit((c) => this.committed(c));
  }

  /**
   * Resolves true once a committed block holds `hash`, false after `timeoutMs`. `minedAlready` is asked after the
   * waiter is registered, so a commit between the caller's submit and this call is not missed.
   */
  wait(hash: Uint8Array, timeoutMs: number, minedAlready: () => boolean): Promise<boolean> {
    const k = key(hash);
    return new Promise((resolve) => {
      let set = this.waiters.get(k);
      if (!set) this.waiters.set(k, (set = new Set()));
      const done = (mined: boolean) => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(k) === set) this.waiters.delete(k);
        resolve(mined);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      set.add(wake);
      if (minedAlready()) done(true);
    });
  }

  private committed(c: CommittedBlock): void {
    if (this.waiters.size === 0) return;
    for (const hash of c.block.txHashes) {
      const set = this.waiters.get(key(hash));
      if (set) for (const wake of [...set]) wake();
    }
  }
}
