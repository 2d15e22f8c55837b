// One-at-a-time sections per key (an account's sends) and a counting semaphore (memory-hungry key derivations).

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

/** Lets at most `slots` sections run at once; the rest wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly slots: number) {}

  /** Runs `fn` once a slot is free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // A finishing section hands its slot straight to the next waiter, so a newcomer cannot overtake the queue.
    if (this.active >= this.slots) await new Promise<void>((res) => this.waiting.push(res));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
