// Decrypted keys held in memory with an expiry (SPEC §3.1): unlocked → locked when the duration passes or on lock.
// A forgotten key is overwritten with zeros, so a stale reference elsewhere cannot sign with it either.

// setTimeout fires early for delays above 2^31-1 ms (about 24.8 days), so long unlocks re-arm in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Held {
  key: Uint8Array;
  /** performance.now() deadline; undefined = until the process exits (or lock). */
  expiresAt?: number;
  timer?: NodeJS.Timeout;
}

/** The set of unlocked keys of one key store, keyed by lowercase hex address. */
export class UnlockedKeys {
  private readonly held = new Map<string, Held>();

  /**
   * Holds `key` for `durationMs` (undefined = until exit). Like geth, a timed unlock of an account that is unlocked
   * indefinitely leaves it unlocked indefinitely (and drops the new copy); otherwise the new unlock replaces the old.
   */
  set(id: string, key: Uint8Array, durationMs: number | undefined): void {
    const prev = this.held.get(id);
    if (prev && prev.expiresAt === undefined && durationMs !== undefined && !this.expired(prev)) {
      if (prev.key !== key) key.fill(0);
      return;
    }
    if (prev) this.forget(id, prev, prev.key !== key);
    const h: Held = { key };
    if (durationMs !== undefined) {
      h.expiresAt = performance.now() + durationMs;
      this.arm(id, h);
    }
    this.held.set(id, h);
  }

  /** The key while unlocked, else undefined (an expired key is forgotten on the spot). */
  get(id: string): Uint8Array | undefined {
    const h = this.held.get(id);
    if (!h) return undefined;
    if (this.expired(h)) {
      this.forget(id, h, true);
      return undefined;
    }
    return h.key;
  }

  /** Whether the account is unlocked right now. */
  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Forgets the key at once (no-op when locked). */
  delete(id: string): void {
    const h = this.held.get(id);
    if (h) this.forget(id, h, true);
  }

  /** Forgets every key (node shutdown). */
  clear(): void {
    for (const [id, h] of [...this.held]) this.forget(id, h, true);
  }

  private expired(h: Held): boolean {
    return h.expiresAt !== undefined && performance.now() >= h.expiresAt;
  }

  private arm(id: string, h: Held): void {
    const wait = Math.max(0, Math.min(MAX_TIMER_MS, h.expiresAt! - performance.now()));
    h.timer = setTimeout(() => {
      if (this.held.get(id) !== h) return;
      if (this.expired(h)) this.forget(id, h, true);
      else this.arm(id, h);
    }, wait);
    // An unlock must not keep the process alive.
    h.timer.unref();
  }

  private forget(id: string, h: Held, wipe: boolean): void {
    if (h.timer) clearTimeout(h.timer);
    if (wipe) h.key.fill(0);
    if (this.held.get(id) === h) this.held.delete(id);
  }
}
