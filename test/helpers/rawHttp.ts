// A raw HTTP/1.1 client on one socket, as a client that keeps a persistent connection and does not watch for the
// server's close sees it (Python's http.client, raw sockets, some pools): the keep-alive test and bench use it.
import net from 'node:net';

/** What one exchange on a raw socket got: its status and Keep-Alive header. */
export interface RawReply {
  status: number;
  keepAlive: string | undefined;
}

/** A raw HTTP/1.1 client on one socket that notes when the server closes it. */
export class RawHttpClient {
  private buffered = '';
  private waiting: ((r: RawReply) => void) | undefined;
  /** Seconds after the last reply at which the server ended the connection; undefined while it is open. */
  closedAfterS: number | undefined;
  private lastReplyAt = 0;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.buffered += d;
      this.parse();
    });
    const closed = () => (this.closedAfterS ??= (performance.now() - this.lastReplyAt) / 1000);
    socket.on('end', closed);
    socket.on('close', closed);
    socket.on('error', () => {});
  }

  /** Connects to 127.0.0.1:port. */
  static connect(port: number): Promise<RawHttpClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new RawHttpClient(s)));
      s.once('error', reject);
    });
  }

  private parse(): void {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0 || this.waiting === undefined) return;
    const head = this.buffered.slice(0, end);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buffered.length < end + 4 + length) return;
    this.buffered = this.buffered.slice(end + 4 + length);
    this.lastReplyAt = performance.now();
    const done = this.waiting;
    this.waiting = undefined;
    done({
      status: Number(head.split(' ')[1]),
      keepAlive: /\r\nkeep-alive: *([^\r]*)/i.exec(head)?.[1],
    });
  }

  /**
   * Sends one eth_blockNumber call, whether or not the server has closed the socket (as such a client does); rejects
   * when the write fails, the socket ends before the reply, or no reply comes within `timeoutMs`.
   */
  request(timeoutMs = 10_000): Promise<RawReply> {
    const body = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
      const fail = (e?: Error | null) => {
        clearTimeout(timer);
        this.waiting = undefined;
        reject(e ?? new Error('the server closed the connection'));
      };
      this.waiting = (r) => {
        clearTimeout(timer);
        resolve(r);
      };
      // A socket the server already closed emits no further events: its write fails in the callback instead.
      if (this.socket.destroyed) return fail(new Error('the server had closed the connection'));
      this.socket.once('error', fail);
      this.socket.once('close', () => fail());
      this.socket.write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        (e) => e && fail(e),
      );
    });
  }

  /** Closes the socket. */
  destroy(): void {
    this.socket.destroy();
  }
}
