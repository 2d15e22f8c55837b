// A counting semaphore: memory-hungry key derivations, concurrent traces.

/** Lets at most `slots` sections run at once; the rest wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  /** `maxWaiting`: how many may queue for a slot; one more is refused with `onFull()`'s error. */
  constructor(
    private readonly slots: number,
    private readonly maxWaiting = Infinity,
    private readonly onFull: () => Error = () => new Error('too many waiting'),
  ) {}

  /** Runs `fn` once a slot is free (throws `onFull()` when the queue is full). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // A finishing section hands its slot straight to the next waiter, so a newcomer cannot overtake the queue.
    if (this.active < this.slots) this.active++;
    else if (this.waiting.length >= this.maxWaiting) throw this.onFull();
    else await new Promise<void>((res) => this.waiting.push(res));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
