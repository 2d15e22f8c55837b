// A cap on the open connections of one server. Connections over the cap are still accepted by the kernel, so
// the server answers them with a clear error (HTTP 503 / refused upgrade) instead of a silent reset, and drops
// them soon whatever the client does.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection over the cap may stay open to receive its refusal. */
const OVER_CAP_GRACE_MS = 5_000;

/** Counts a server's open connections and marks the ones beyond `max` (0 = no cap). */
export class ConnectionCap {
  private open = 0;
  private readonly over = new WeakSet<Socket>();

  constructor(private readonly max: number) {}

  /** Starts counting the connections of `server`. */
  track(server: Server): void {
    if (this.max <= 0) return;
    // Prepended so the count is right before the HTTP parser sees the first request on the socket.
    server.prependListener('connection', (socket: Socket) => {
      this.open++;
      socket.once('close', () => this.open--);
      if (this.open > this.max) {
        this.over.add(socket);
        socket.setTimeout(OVER_CAP_GRACE_MS, () => socket.destroy());
      }
    });
  }

  /** True when this connection arrived while the server was at its cap. */
  isOver(socket: Socket): boolean {
    return this.over.has(socket);
  }

  /** The refusal message (geth has no cap; the wording names the setting to raise). */
  message(): string {
    return `too many open connections (max-open-connections = ${this.max})`;
  }
}
