// Counting a listening port's open TCP connections from the kernel's table (/proc/net/tcp and tcp6, Linux).
// uWebSockets.js tells JavaScript nothing about connections (not even which one a request came on), so its back end
// enforces max-open-connections from this count by pausing its listener instead of answering 503.
import { existsSync, readFileSync } from 'node:fs';

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
// Socket states that still hold a descriptor in the server: ESTABLISHED (01) and CLOSE_WAIT (08, the peer has
// hung up and the server has not yet closed).
const OPEN_STATES = new Set(['01', '08']);
/** How long a count under the cap is trusted; a count over it is always re-read before refusing anyone. */
const FRESH_MS = 50;

/** Whether this system exposes the kernel's TCP table. */
export function procConnectionCountAvailable(): boolean {
  return existsSync(TABLES[0]!);
}

/** Counts the open connections whose local port is `port` in the given table texts. */
export function countOpenConnections(tables: readonly string[], port: number): number {
  const suffix = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let n = 0;
  for (const text of tables) {
    let start = text.indexOf('\n') + 1; // header line
    while (start > 0 && start < text.length) {
      const end = text.indexOf('\n', start);
      const line = text.slice(start, end < 0 ? text.length : end);
      start = end < 0 ? text.length : end + 1;
      // "  sl  local_address rem_address   st ..."
      const fields = line.trim().split(/\s+/, 4);
      if (fields.length < 4) continue;
      if (fields[1]!.endsWith(suffix) && OPEN_STATES.has(fields[3]!)) n++;
    }
  }
  return n;
}

/** What a gate does to its listener: stop accepting, or accept again (false when the port could not be bound). */
export interface Listener {
  pause(): void;
  resume(): Promise<boolean>;
}

/**
 * max-open-connections for a server that cannot tell one connection from another (uWebSockets.js): at the cap it
 * stops listening, so the kernel refuses new connections while those already open keep being served, and listens
 * again once connections have closed. The count is the kernel's, so idle sockets count too. It is read every
 * 100 ms, and when a request or handshake arrives on a count older than 50 ms.
 */
export class ListenGate {
  private port = 0;
  private count = 0;
  private readAt = -Infinity;
  private paused = false;
  private resuming = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly max: number,
    private readonly listener: Listener,
    private readonly log: (m: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Starts gating once the server listens on `port`. */
  start(port: number): void {
    if (this.max <= 0) return;
    this.port = port;
    this.timer = setInterval(() => void this.poll(), 100);
    this.timer.unref();
  }

  /** Called for each request or handshake; `newConnection` (a WebSocket upgrade) adds one to a cached count. */
  check(newConnection = false): void {
    if (this.max <= 0 || this.port === 0 || this.paused) return;
    const t = this.now();
    if (t - this.readAt > FRESH_MS) this.read(t);
    else if (newConnection) this.count++;
    if (this.count >= this.max) this.pause();
  }

  /** Stops the gate's timer (the server is closing). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.port = 0;
  }

  private read(t: number): void {
    this.count = countOpenConnections(TABLES.map(readTable), this.port);
    this.readAt = t;
  }

  private pause(): void {
    this.paused = true;
    this.listener.pause();
    this.log(`rpc: ${this.count} open connections on port ${this.port} (max-open-connections = ${this.max}): new connections are refused until some close`);
  }

  private async poll(): Promise<void> {
    if (this.resuming || this.port === 0) return;
    this.read(this.now());
    if (!this.paused) {
      if (this.count >= this.max) this.pause();
      return;
    }
    if (this.count >= this.max) return;
    this.resuming = true;
    try {
      if (!(await this.listener.resume())) return; // port taken meanwhile: try again on the next tick
      this.paused = false;
      this.log(`rpc: accepting connections on port ${this.port} again (${this.count} open)`);
    } finally {
      this.resuming = false;
    }
  }
}

function readTable(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '';
  }
}
