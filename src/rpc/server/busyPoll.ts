// Adaptive busy-polling of the event loop. Between two requests of a client that waits for each answer, an idle
// Node thread sleeps in epoll_wait, and waking it costs more than answering a simple read (the figures:
// bench/results/transport-and-reads.md). For a short window after each answer the loop is kept
// polling with setImmediate, so the next request is read at once; after the window it sleeps again, so an idle
// node costs nothing. Go's scheduler and tokio's workers spin before parking for the same reason.

/** Keeps the event loop polling for a window after each touch(). */
export class BusyPoll {
  private last = 0;
  private active = false;
  private stopped = false;
  private readonly windowMs: number;

  /** `windowUs` = 0 turns it off. */
  constructor(windowUs: number) {
    this.windowMs = windowUs / 1000;
  }

  /** Notes an answered request: the loop keeps polling until `windowUs` passes without another. */
  touch(): void {
    if (this.windowMs <= 0 || this.stopped) return;
    this.last = performance.now();
    if (this.active) return;
    this.active = true;
    setImmediate(this.tick);
  }

  /** Whether the loop is being kept polling now. */
  get polling(): boolean {
    return this.active;
  }

  /** Ends polling for good (server shutdown). */
  stop(): void {
    this.stopped = true;
  }

  private readonly tick = (): void => {
    // A pending immediate makes libuv poll for I/O with a zero timeout instead of sleeping.
    if (!this.stopped && performance.now() - this.last < this.windowMs) setImmediate(this.tick);
    else this.active = false;
  };
}
