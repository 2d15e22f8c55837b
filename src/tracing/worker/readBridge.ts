// Synchronous state reads from a tracer worker. The archive database is open once, in the node's main thread
// (LevelDB allows one handle per process), and tracers read state synchronously (db.getBalance & co. run inside
// a QuickJS call). So the worker posts the request on a dedicated port and blocks in Atomics.wait; the main
// thread answers on the same port and flips the shared flag; the worker then takes the answer with
// receiveMessageOnPort. The main thread never blocks: it only answers when its event loop comes around.
import type { MessagePort } from 'node:worker_threads';
import type { NodeSource } from '../syncState.ts';
import type { ReadReply, ReadRequest } from './protocol.ts';
import { errorMessage } from '../../errors/index.ts';

/** How long a worker waits for one read before giving up (the node answers in microseconds when alive). */
const READ_TIMEOUT_MS = 30_000;

/** Main thread: answers a worker's reads on `port` until the port closes. */
export function serveReads(
  port: MessagePort,
  signal: Int32Array,
  readNode: NodeSource,
  hashOf: (n: bigint) => Uint8Array | undefined,
): void {
  port.on('message', (req: ReadRequest) => {
    let reply: ReadReply;
    try {
      const v = req.kind === 'node' ? readNode(req.key) : hashOf(req.n);
      reply = { value: v ?? null };
    } catch (e) {
      reply = { error: errorMessage(e) };
    }
    // The answer is queued before the flag flips, so the worker always finds it.
    port.postMessage(reply);
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
  port.unref();
}

/** Worker thread: blocking reads through the node. */
export class ReadBridge {
  private readonly signal: Int32Array;

  constructor(
    private readonly port: MessagePort,
    signal: SharedArrayBuffer,
  ) {
    this.signal = new Int32Array(signal);
  }

  private read(req: ReadRequest): Uint8Array | undefined {
    Atomics.store(this.signal, 0, 0);
    this.port.postMessage(req);
    // The flag, not the wake-up, says the answer is there: the node flips the flag and then notifies, and when the
    // worker saw the flag of the previous read before that read's notify came, the late notify wakes this wait
    // before its answer exists (CI saw "state read lost" once; a 0.2-ms pause between flip and notify shows it).
    const deadline = Date.now() + READ_TIMEOUT_MS;
    while (Atomics.load(this.signal, 0) === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.signal, 0, 0, left) === 'timed-out') throw new Error('state read timed out');
    }
    // Loaded on use (a worker's reads), not with the main thread's modules (see pool.ts).
    const got = process.getBuiltinModule('node:worker_threads').receiveMessageOnPort(this.port);
    if (!got) throw new Error('state read lost');
    const reply = got.message as ReadReply;
    if ('error' in reply) throw new Error(reply.error);
    return reply.value ?? undefined;
  }

  /** A trie node or code blob by its key. */
  node(key: Uint8Array): Uint8Array | undefined {
    return this.read({ kind: 'node', key });
  }

  /** The canonical hash of block `n`. */
  hash(n: bigint): Uint8Array | undefined {
    return this.read({ kind: 'hash', n });
  }
}
