// Counting a listening port's open TCP connections from the kernel's table (/proc/net/tcp and tcp6, Linux).
// uWebSockets.js tells JavaScript nothing about connections (not even which one a request came on), so its back end
// enforces max-open-connections from this count by pausing its listener instead of answering 503.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
// Socket states that still hold a descriptor in the server: ESTABLISHED (01) and CLOSE_WAIT (08, the peer has
// hung up and the server has not yet closed).
const OPEN_STATES = new Set(['01', '08']);
/** The kernel's table is slow to read (tens of ms on a busy machine): at most this often. */
const TABLE_READ_MS = 500;
/** How often the gate looks. */
const POLL_MS = 250;

/** Whether this system exposes the kernel's TCP table. */
export function procConnectionCountAvailable(): boolean {
  return existsSync(TABLES[0]!) && existsSync('/proc/self/fd');
}

/** The process's open file descriptors: an upper bound of its connections on any one port, and cheap to read. */
function openDescriptors(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return Infinity;
  }
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
 * again once connections have closed. Every 250 ms it counts the process's descriptors (cheap); only when they reach
 * the cap does it read the kernel's table for the port's own count (slow, so at most every 500 ms). Idle sockets
 * count, as on the node:http back end.
 */
export class ListenGate {
  private port = 0;
  private count = 0;
  private tableReadAt = -Infinity;
  private paused = false;
  private busy = false;
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
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Stops the gate's timer (the server is closing). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.port = 0;
  }

  /** The port's open connections, or an upper bound of them when that bound is already under the cap. */
  private measure(): number {
    const fds = openDescriptors();
    if (fds < this.max) return fds;
    const t = this.now();
    if (t - this.tableReadAt >= TABLE_READ_MS) {
      this.count = countOpenConnections(TABLES.map(readTable), this.port);
      this.tableReadAt = t;
    }
    return this.count;
  }

  private async poll(): Promise<void> {
    if (this.busy || this.port === 0) return;
    const open = this.measure();
    if (!this.paused) {
      if (open >= this.max) {
        this.paused = true;
        this.listener.pause();
        this.log(
          `rpc: ${open} open connections on port ${this.port} (max-open-connections = ${this.max}): new connections are refused until some close`,
        );
      }
      return;
    }
    if (open >= this.max) return;
    this.busy = true;
    try {
      if (!(await this.listener.resume())) return; // port taken meanwhile: try again on the next tick
      this.paused = false;
      this.log(`rpc: accepting connections on port ${this.port} again (${open} open)`);
    } finally {
      this.busy = false;
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
