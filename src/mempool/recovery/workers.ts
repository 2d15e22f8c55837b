// Sender recovery off the main thread. Admission's largest single cost is the elliptic-curve recovery of the
// sender (~40% of a sent tx's main-thread CPU); on a machine with spare cores a few worker threads take it. The jobs
// of one event-loop turn (every request read in one poll) go out as one batch, split across the workers, so the
// per-message cost is shared; a turn with fewer than `minBatch` jobs, or a pool with no worker, recovers inline.
// Results are handed back in submission order, so txs reach the pool in the order they arrived, as inline.
// The workers start with the first submitted tx, not with the node: creating one blocks the main thread for
// 30-80 ms here, which a node's start (and a node that never receives a tx) should not pay; until a worker is
// online its turns are recovered inline.
import type { Worker } from 'node:worker_threads';
import { secp256k1 } from '../../primitives/secp256k1.ts';
import { recoverNow, type RecoveryJob } from '../../app/evm/validate.ts';
import { TxRejectedError } from '../../errors/index.ts';
import { packJobs, RESULT_BYTES, type BatchReply } from './wire.ts';
import { startWorker, workerBootCode } from '../../primitives/workerBoot.ts';

/**
 * A turn's batch from this size on is split one share more than there are workers, the main thread recovering the
 * last share itself while the workers do theirs: a block's txs (CometBFT's proposals), which the main thread would
 * otherwise only wait for. Below it (the turns of the send path) the main thread's time goes to other requests.
 */
export const MAIN_SHARE_FROM = 64;

/** How sender recovery is spread. */
export interface RecoveryOptions {
  /** Worker threads (0: every recovery on the main thread). */
  workers: number;
  /** Smallest turn's batch sent to the workers; smaller ones are recovered inline. */
  minBatch: number;
  /** Smallest turn's batch the main thread takes a share of (default MAIN_SHARE_FROM; Infinity: never). */
  mainShareFrom?: number;
}

interface Entry {
  job: RecoveryJob;
  resolve: (pub: Uint8Array) => void;
  reject: (e: Error) => void;
  /** The public key, null when the signature does not recover, undefined while pending. */
  result?: Uint8Array | null;
}

interface Batch {
  worker: RecoveryWorker;
  entries: Entry[];
}

/** One worker thread and how many jobs it has in hand. */
class RecoveryWorker {
  outstanding = 0;
  dead = false;
  online = false;
  readonly worker: Worker;

  constructor(boot: string, onReply: (r: BatchReply) => void, onDeath: (w: RecoveryWorker) => void) {
    this.worker = startWorker(boot);
    this.worker.unref();
    this.worker.once('online', () => (this.online = true));
    this.worker.on('message', onReply);
    const die = (): void => {
      if (this.dead) return;
      this.dead = true;
      onDeath(this);
    };
    this.worker.on('error', (e) => {
      console.error('sender recovery worker failed:', e);
      die();
    });
    this.worker.on('exit', die);
  }
}

/** Recovers senders' public keys, on worker threads when a turn's batch is large enough. */
export class SenderRecovery {
  private readonly workers: RecoveryWorker[] = [];
  /** Every job not yet handed back, in submission order. */
  private readonly order: Entry[] = [];
  /** Jobs of the current turn, not yet dispatched. */
  private turn: Entry[] = [];
  private scheduled = false;
  private readonly batches = new Map<number, Batch>();
  private nextId = 1;
  private closed = false;
  private started = false;
  private inline = 0;

  constructor(private readonly opts: RecoveryOptions) {
    if (!Number.isInteger(opts.workers) || opts.workers < 0) throw new Error('recovery workers must be ≥ 0');
  }

  /** Number of live worker threads (0 until the first job started them). */
  get size(): number {
    return this.workers.filter((w) => !w.dead).length;
  }

  /** Jobs recovered on the main thread so far: small turns with no worker online, and large batches' own share. */
  get inlineJobs(): number {
    return this.inline;
  }

  /** Starts the worker threads (the first job does it; a caller may do it earlier); resolves once all are online. */
  async start(): Promise<void> {
    if (!this.started && !this.closed) {
      this.started = true;
      const boot = workerBootCode(import.meta.url);
      for (let i = 0; i < this.opts.workers; i++) {
        this.workers.push(
          new RecoveryWorker(
            boot,
            (r) => this.onReply(r),
            (w) => this.onDeath(w),
          ),
        );
      }
    }
    await Promise.all(
      this.workers.map(
        (w) =>
          w.online ||
          new Promise<void>((resolve) => {
            w.worker.once('online', () => resolve());
            w.worker.once('exit', () => resolve());
          }),
      ),
    );
  }

  /** The public key (64 bytes) of `job`'s signature; rejects with TxRejectedError('invalidSender') if none. */
  recover(job: RecoveryJob): Promise<Uint8Array> {
    if (!this.started && this.opts.workers > 0) void this.start();
    if (this.closed || this.workers.length === 0) {
      try {
        return Promise.resolve(recoverNow(job));
      } catch (e) {
        return Promise.reject(e as Error);
      }
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      const entry: Entry = { job, resolve, reject };
      this.order.push(entry);
      this.turn.push(entry);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.dispatch());
      }
    });
  }

  /** Stops the workers; jobs still in hand are recovered inline. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = this.workers.splice(0);
    for (const w of workers) w.dead = true;
    this.rescue();
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private dispatch(): void {
    this.scheduled = false;
    const jobs = this.turn;
    this.turn = [];
    const live = this.workers.filter((w) => !w.dead && w.online);
    if (jobs.length < this.opts.minBatch || live.length === 0) {
      this.recoverHere(jobs);
      return;
    }
    // Least-loaded workers first; no more chunks than jobs.
    live.sort((a, b) => a.outstanding - b.outstanding);
    const shares = jobs.length >= (this.opts.mainShareFrom ?? MAIN_SHARE_FROM) ? live.length + 1 : live.length;
    const chunks = Math.min(shares, jobs.length);
    const per = Math.ceil(jobs.length / chunks);
    const posted = shares > live.length ? jobs.length - per : jobs.length;
    for (let c = 0, at = 0; at < posted; c++, at += per) {
      const entries = jobs.slice(at, Math.min(at + per, posted));
      const worker = live[c]!;
      const id = this.nextId++;
      this.batches.set(id, { worker, entries });
      worker.outstanding += entries.length;
      const buf = packJobs(entries.map((e) => e.job));
      worker.worker.postMessage({ id, jobs: buf }, [buf]);
    }
    // The main thread's share, recovered while the workers do theirs.
    if (posted < jobs.length) this.recoverHere(jobs.slice(posted));
  }

  private recoverHere(entries: Entry[]): void {
    for (const e of entries) e.result = recoverInline(e.job);
    this.inline += entries.length;
    this.drain();
  }

  private onReply(r: BatchReply): void {
    const batch = this.batches.get(r.id);
    if (!batch) return;
    this.batches.delete(r.id);
    batch.worker.outstanding -= batch.entries.length;
    const out = new Uint8Array(r.results);
    if (out.length !== batch.entries.length * RESULT_BYTES) throw new Error('recovery worker: malformed reply');
    batch.entries.forEach((e, i) => {
      const at = i * RESULT_BYTES;
      e.result = out[at] === 1 ? out.slice(at + 1, at + RESULT_BYTES) : null;
    });
    this.drain();
  }

  /** A dead worker's batches are recovered inline: a worker's failure never fails a tx. */
  private onDeath(w: RecoveryWorker): void {
    for (const [id, b] of this.batches) {
      if (b.worker !== w) continue;
      this.batches.delete(id);
      for (const e of b.entries) e.result = recoverInline(e.job);
    }
    this.drain();
  }

  /** Recovers inline every job still in a worker's hands (close). */
  private rescue(): void {
    for (const b of this.batches.values()) for (const e of b.entries) e.result ??= recoverInline(e.job);
    this.batches.clear();
    for (const e of this.turn) e.result ??= recoverInline(e.job);
    this.turn = [];
    this.drain();
  }

  /** Hands back the finished jobs at the head of the submission order. */
  private drain(): void {
    while (this.order.length > 0 && this.order[0]!.result !== undefined) {
      const e = this.order.shift()!;
      if (e.result === null) e.reject(new TxRejectedError('invalidSender', 'invalid sender'));
      else e.resolve(e.result!);
    }
  }
}

/** The main thread's recovery of one job, in the worker's terms (null: no key). */
function recoverInline(job: RecoveryJob): Uint8Array | null {
  try {
    return secp256k1().ecdsaRecover(job.sig, job.recid, job.msgHash, false).slice(1);
  } catch {
    return null;
  }
}
