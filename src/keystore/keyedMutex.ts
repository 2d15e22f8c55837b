// One-at-a-time sections per key (an account's sends).

/** Runs async sections one at a time per key; different keys run concurrently. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier section for `key` has settled. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    // Drop the entry once the queue drains, so the map does not grow with every address ever used.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
