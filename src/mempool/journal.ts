// The pool journal: an append-only file of accepted txs (<home>/data/txpool.journal) so a restart, even after
// kill -9, gets back every tx the node acknowledged. Appends are group-committed: the records that arrive while a
// write + fdatasync is in flight go out together in the next one, and each append resolves only once its record
// is on disk, so an acknowledged tx survives a crash of the process and (with `fsync`) of the machine. The file
// is rewritten from the pool's content at start and whenever it has grown well past it (compaction).
//
// Format: an 8-byte magic, then records [u32 BE payload length][u32 BE crc32(payload)][payload], payload =
// [u64 BE addedAt ms][raw tx]. Reading stops at the first short or corrupt record (a torn tail after a crash).
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

const MAGIC = Buffer.from('KTXJRNL1');
const HEADER = 8;

/** One journaled tx. */
export interface JournalEntry {
  raw: Uint8Array;
  addedAt: number;
}

/** What reading the journal found. */
export interface JournalRead {
  entries: JournalEntry[];
  /** Bytes at the end that did not form a whole, valid record (ignored). */
  tornBytes: number;
}

/** Journal options. */
export interface JournalOptions {
  /** fdatasync before an append resolves (survives power loss); without it a write() still survives kill -9. */
  fsync: boolean;
  /** Current pool content, for compaction. */
  snapshot: () => JournalEntry[];
  /** Number of txs in the pool (cheap), to decide when to compact. */
  liveCount: () => number;
}

function encode(e: JournalEntry): Buffer {
  const payload = Buffer.allocUnsafe(8 + e.raw.length);
  payload.writeBigUInt64BE(BigInt(e.addedAt), 0);
  payload.set(e.raw, 8);
  const head = Buffer.allocUnsafe(8);
  head.writeUInt32BE(payload.length, 0);
  head.writeUInt32BE(crc32(payload), 4);
  return Buffer.concat([head, payload]);
}

/** Reads the records of a journal file (missing file: none). */
export function readJournal(path: string): JournalRead {
  if (!existsSync(path)) return { entries: [], tornBytes: 0 };
  const buf = readFileSync(path);
  if (buf.length < HEADER || !buf.subarray(0, HEADER).equals(MAGIC)) {
    return { entries: [], tornBytes: buf.length };
  }
  const entries: JournalEntry[] = [];
  let off = HEADER;
  while (off + 8 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const sum = buf.readUInt32BE(off + 4);
    if (len < 8 || off + 8 + len > buf.length) break;
    const payload = buf.subarray(off + 8, off + 8 + len);
    if (crc32(payload) !== sum) break;
    entries.push({ addedAt: Number(payload.readBigUInt64BE(0)), raw: new Uint8Array(payload.subarray(8)) });
    off += 8 + len;
  }
  return { entries, tornBytes: buf.length - off };
}

/** Writes `entries` to `path` atomically (temp file, fsync, rename, fsync of the directory). */
export function writeJournalFile(path: string, entries: JournalEntry[]): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, Buffer.concat([MAGIC, ...entries.map(encode)]));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

interface Waiter {
  buf: Buffer;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The append-only journal of an open pool. */
export class TxJournal {
  private fh?: FileHandle;
  private waiting: Waiter[] = [];
  private chain: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private records = 0;
  private closed = false;

  private constructor(private readonly path: string, private readonly opts: JournalOptions) {}

  /** Rewrites the file from `entries` and opens it for appending. */
  static async create(path: string, entries: JournalEntry[], opts: JournalOptions): Promise<TxJournal> {
    const j = new TxJournal(path, opts);
    await j.reset(entries);
    return j;
  }

  /** Number of records in the file (including ones the pool no longer holds). */
  get recordCount(): number {
    return this.records;
  }

  /** Appends a record; resolves once it is written (and synced, with `fsync`). */
  append(e: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error('txpool journal is closed'));
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ buf: encode(e), resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        this.chain = this.chain.then(() => this.flush()).catch((e) => console.error('txpool journal:', e));
      }
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    try {
      await this.fh!.write(Buffer.concat(batch.map((w) => w.buf)));
      if (this.opts.fsync) await this.fh!.datasync();
      this.records += batch.length;
      for (const w of batch) w.resolve();
    } catch (e) {
      for (const w of batch) w.reject(e);
    }
    // Compaction when the file holds far more records than the pool: mined and replaced txs pile up.
    if (this.records > 1024 && this.records > 4 * this.opts.liveCount()) await this.reset(this.opts.snapshot());
  }

  /** Rewrites the file from the pool's current content (queued behind pending appends). */
  compact(): Promise<void> {
    const done = this.chain.then(() => this.reset(this.opts.snapshot()));
    this.chain = done.catch((e) => console.error('txpool journal compaction failed:', e));
    return done;
  }

  private async reset(entries: JournalEntry[]): Promise<void> {
    // If the rewrite fails the old file and handle stay in use; after the rename the old handle points at the
    // unlinked inode, so it is swapped before any further append.
    writeJournalFile(this.path, entries);
    const old = this.fh;
    this.fh = await open(this.path, 'a');
    await old?.close();
    this.records = entries.length;
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain;
    await this.fh?.close();
    this.fh = undefined;
  }
}
