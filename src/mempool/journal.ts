// The pool journal: an append-only file of accepted txs (<home>/data/txpool.journal) so a restart, even after
// kill -9, gets back every tx the node acknowledged. Each record is written at once; fdatasyncs are group-committed
// (the records written while one is in flight share the next), and each append resolves only once its record is
// on disk, so an acknowledged tx survives a crash of the process and (with `fsync`) of the machine. The file
// is rewritten from the pool's content at start and whenever it has grown well past it (compaction).
//
// The file is preallocated with zeros and records overwrite them in place: an fdatasync then has only data to
// flush, while one that also carries a size change makes ext4 commit its journal, which waits for every other
// file's pending data too (LevelDB's included), so each ack would wait for the node's other writes.
//
// Format: an 8-byte magic, then records [u32 BE payload length][u32 BE crc32(payload)][payload], payload =
// [u64 BE addedAt ms][raw tx], then zeros. Reading stops at the first short or corrupt record (a torn tail after a
// crash) or at the zeros.
import {
  closeSync,
  existsSync,
  fdatasync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

const MAGIC = Buffer.from('KTXJRNL1');
const HEADER = 8;
/** Zeros reserved past the records when the file is written, and added when appends reach its end. */
export const PREALLOCATE_BYTES = 1 << 20;

/** One journaled tx. */
export interface JournalEntry {
  raw: Uint8Array;
  addedAt: number;
}

/** What reading the journal found. */
export interface JournalRead {
  entries: JournalEntry[];
  /** Bytes at the end that did not form a whole, valid record (ignored); the zero padding is not counted. */
  tornBytes: number;
  /** The file is a journal with no record (its magic, then only zeros): TxJournal.openEmpty can append to it as is. */
  empty: boolean;
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

const ZERO_BLOCK = Buffer.alloc(4096);

/**
 * Where `buf` ends without its trailing zeros (the preallocation), not before `from`. Whole blocks are compared
 * natively first: a byte loop over the 1 MiB of zeros took 3-8 ms of every start.
 */
function trimZeros(buf: Buffer, from: number): number {
  let end = buf.length;
  const block = ZERO_BLOCK.length;
  while (end - from >= block && buf.subarray(end - block, end).equals(ZERO_BLOCK)) end -= block;
  while (end > from && buf[end - 1] === 0) end--;
  return end;
}

/** Reads the records of a journal file (missing file: none). */
export function readJournal(path: string): JournalRead {
  if (!existsSync(path)) return { entries: [], tornBytes: 0, empty: false };
  const buf = readFileSync(path);
  if (buf.length < HEADER || !buf.subarray(0, HEADER).equals(MAGIC)) {
    return { entries: [], tornBytes: buf.length, empty: false };
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
  const end = trimZeros(buf, off);
  return { entries, tornBytes: end - off, empty: entries.length === 0 && end === off };
}

/**
 * Writes `entries` to `path` atomically (temp file, fsync, rename, fsync of the directory), followed by `reserve`
 * zero bytes; returns the length of the records part (where the next record goes).
 */
export function writeJournalFile(path: string, entries: JournalEntry[], reserve = 0): number {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  const content = Buffer.concat([MAGIC, ...entries.map(encode)]);
  try {
    writeAll(fd, content, 0);
    if (reserve > 0) writeAll(fd, Buffer.alloc(reserve), content.length);
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
  return content.length;
}

function writeAll(fd: number, buf: Buffer, position: number): void {
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off, position + off);
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The append-only journal of an open pool. */
export class TxJournal {
  private fd = -1;
  /** End of the records: where the next one is written. */
  private size = 0;
  /** File length (records plus zeros). */
  private capacity = 0;
  /** Appends written but not yet covered by a finished fdatasync. */
  private unsynced: Waiter[] = [];
  private syncing?: Promise<void>;
  private records = 0;
  private closed = false;

  private constructor(
    private readonly path: string,
    private readonly opts: JournalOptions,
  ) {}

  /** Rewrites the file from `entries` and opens it for appending. */
  static async create(path: string, entries: JournalEntry[], opts: JournalOptions): Promise<TxJournal> {
    const j = new TxJournal(path, opts);
    j.reset(entries);
    return j;
  }

  /**
   * Opens a journal file that holds no record (readJournal's `empty`) for appending, as it is: with an empty pool
   * there is nothing to compact, and rewriting it (1 MiB of zeros, two fsyncs) cost every start ~15 ms.
   */
  static openEmpty(path: string, opts: JournalOptions): TxJournal {
    const j = new TxJournal(path, opts);
    j.fd = openSync(path, 'r+');
    j.size = HEADER;
    j.capacity = fstatSync(j.fd).size;
    return j;
  }

  /** Number of records in the file (including ones the pool no longer holds). */
  get recordCount(): number {
    return this.records;
  }

  /**
   * Appends a record; resolves once it is written (and synced, with `fsync`). The write itself is synchronous: a
   * small write to the page cache costs microseconds, while a round trip through the thread pool waits behind
   * LevelDB's batch and the event loop (milliseconds while blocks are being written). Only the fdatasync runs
   * off the main thread.
   */
  append(e: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error('txpool journal is closed'));
    try {
      this.writeRecord(encode(e));
    } catch (err) {
      return Promise.reject(err);
    }
    if (!this.opts.fsync) {
      this.maybeCompact();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.unsynced.push({ resolve, reject });
      this.startSync();
    });
  }

  private writeRecord(buf: Buffer): void {
    try {
      // Growing the file is the rare case: the next fdatasync carries the size change.
      while (this.size + buf.length > this.capacity) {
        writeAll(this.fd, Buffer.alloc(PREALLOCATE_BYTES), this.capacity);
        this.capacity += PREALLOCATE_BYTES;
      }
      writeAll(this.fd, buf, this.size);
    } catch (err) {
      // Not advancing `size` makes the next record overwrite whatever part of this one reached the file; zeroing
      // it now (best effort) keeps a crash before then from leaving a half record that stops the replay.
      try {
        writeAll(this.fd, Buffer.alloc(buf.length), this.size);
      } catch {
        /* the next record overwrites it */
      }
      throw err;
    }
    this.size += buf.length;
    this.records++;
  }

  /**
   * Group commit: one fdatasync at a time covers every record written before it started; the appends that arrive
   * meanwhile share the next one.
   */
  private startSync(): void {
    if (this.syncing || this.unsynced.length === 0) return;
    const batch = this.unsynced;
    this.unsynced = [];
    this.syncing = new Promise<void>((done) => {
      fdatasync(this.fd, (err) => {
        for (const w of batch)
          if (err) w.reject(err);
          else w.resolve();
        this.syncing = undefined;
        this.maybeCompact();
        this.startSync();
        done();
      });
    });
  }

  /**
   * Compaction when the file holds far more records than the pool: mined and replaced txs pile up. Never under an
   * fdatasync in flight (its descriptor is the one being swapped). Records written but not yet synced need no sync
   * of their own afterwards: each was appended after its tx entered the pool, so the snapshot (written and synced
   * whole) holds it unless it has left the pool (mined, or replaced) meanwhile.
   */
  private maybeCompact(): void {
    if (this.syncing) return;
    if (this.records > 1024 && this.records > 4 * this.opts.liveCount()) {
      try {
        this.reset(this.opts.snapshot());
      } catch (e) {
        console.error('txpool journal compaction failed:', e);
        return;
      }
      const covered = this.unsynced;
      this.unsynced = [];
      for (const w of covered) w.resolve();
    }
  }

  /** Waits until no fdatasync is in flight and no written record awaits one. */
  private async settle(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  /** Rewrites the file from the pool's current content (after the syncs in flight). */
  async compact(): Promise<void> {
    await this.settle();
    this.reset(this.opts.snapshot());
  }

  /** Rewrites the file with `entries` (after the syncs in flight), whatever the pool holds. */
  async rewrite(entries: JournalEntry[]): Promise<void> {
    await this.settle();
    this.reset(entries);
  }

  private reset(entries: JournalEntry[]): void {
    // If the rewrite fails the old file and descriptor stay in use; after the rename the old descriptor points at
    // the unlinked inode, so it is swapped before any further append. No fdatasync is in flight on it here.
    const size = writeJournalFile(this.path, entries, PREALLOCATE_BYTES);
    const old = this.fd;
    // Not 'a': with O_APPEND, Linux ignores the write position.
    this.fd = openSync(this.path, 'r+');
    this.size = size;
    this.capacity = fstatSync(this.fd).size;
    if (old >= 0) closeSync(old);
    this.records = entries.length;
  }

  /** Waits for pending syncs and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.settle();
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
