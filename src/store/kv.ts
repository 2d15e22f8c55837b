// The LevelDB handle (classic-level). Writes go through one atomic batch per block. A failed write stops all
// further writes until the process restarts (fail-stop): see StorageFailedError.
import { ClassicLevel } from 'classic-level';
import { StorageFailedError } from '../errors/index.ts';

const MiB = 1024 * 1024;
/**
 * The size LevelDB closes a table file at: the smallest it accepts (db_impl.cc SanitizeOptions clips max_file_size
 * to at least 1 MiB), half of classic-level's default, so each open table's mapped pages (below) weigh half as much.
 */
const TABLE_FILE_BYTES = 1 * MiB;
/** Of max_open_files, LevelDB keeps this many for its own files (log, manifest, …): the table cache has the rest. */
const NON_TABLE_FILES = 10;
/**
 * The fewest tables kept open: LevelDB 1.20 raises a smaller max_open_files to 64 + NON_TABLE_FILES (db_impl.cc
 * SanitizeOptions), so asking for fewer changes nothing.
 */
const MIN_OPEN_TABLES = 64;

/** One write of an atomic batch. */
export type KvOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** A byte-keyed, byte-valued LevelDB store. */
export class KvStore {
  /** Set by the first failed write; every later write is refused with it. */
  private failure: StorageFailedError | undefined;

  private constructor(private readonly db: ClassicLevel<Uint8Array, Uint8Array>) {}

  /** The write failure that stopped this store, if one did. */
  get failed(): StorageFailedError | undefined {
    return this.failure;
  }

  /**
   * Opens (creating if needed) the database at `path`. `memoryBytes` bounds LevelDB's block cache and its two
   * write buffers (memtables) together, and sets how many table files it keeps open; LevelDB's defaults (8 MiB of
   * cache, 4 MiB buffers, 1,000 open files) when absent.
   *
   * Why the open tables are bounded too: on 64-bit Linux LevelDB 1.20 reads each open table through an mmap (up to
   * 1,000 of them), and a block stored uncompressed (compression saved under 1/8: trie nodes, hashes) is used
   * in place in the mapping, never copied into the block cache (format.cc ReadBlock: "Do not double-cache"). Every
   * page a read or a compaction touched stays resident in the node's RSS until the table is closed, so with the
   * default that part of RSS is bounded only by the database (up to 1,000 tables of 2 MiB). Soaks of a 64 MiB budget
   * measured these mapped pages at 0-1 MiB in minute 1 and 20-31 MiB by minutes 6-9 (a 44 MB database at minute 4),
   * most of the memory outside V8's heap that grew. Open tables hold no file descriptor (closed once mapped), and
   * reopening an evicted one reads its footer, index and filter from the page cache. One open table per MiB of
   * `memoryBytes`, at least the 64 LevelDB insists on, bounds the mapped pages to that many tables' worth (64 MiB
   * below a 640 MiB budget) whatever the database's size: a bound, but above the budget's LevelDB share. Tables of
   * 1 MiB rather than classic-level's 2 halve that bound for small budgets.
   */
  static async open(path: string, memoryBytes?: number): Promise<KvStore> {
    const writeBufferSize = memoryBytes === undefined ? undefined : Math.min(4 * MiB, Math.floor(memoryBytes / 4));
    const db = new ClassicLevel<Uint8Array, Uint8Array>(path, {
      keyEncoding: 'view',
      valueEncoding: 'view',
      ...(memoryBytes === undefined
        ? {}
        : {
            writeBufferSize,
            maxFileSize: TABLE_FILE_BYTES,
            cacheSize: memoryBytes - 2 * writeBufferSize!,
            maxOpenFiles: NON_TABLE_FILES + Math.max(MIN_OPEN_TABLES, Math.floor(memoryBytes / TABLE_FILE_BYTES)),
          }),
    });
    await db.open();
    return new KvStore(db);
  }

  /** LevelDB's own estimate of its memory: the block cache's contents and the memtables. */
  memoryBytes(): number {
    return Number(this.db.getProperty('leveldb.approximate-memory-usage'));
  }

  /** Synchronous point read: LevelDB's block cache makes this faster than a promise round trip. */
  get(key: Uint8Array): Uint8Array | undefined {
    return this.db.getSync(key);
  }

  /** Applies all ops atomically (all or nothing survive a crash). */
  async write(ops: KvOp[]): Promise<void> {
    if (this.failure) throw this.failure;
    if (ops.length === 0) return;
    // A chained batch: each op goes to LevelDB's write batch in one native call with its key and value, where the
    // array form clones every op object and the binding reads its type, key and value back by name (a 2,300-op
    // block batch took about a quarter less CPU this way in a classic-level micro-bench).
    let batch: ReturnType<typeof this.db.batch> | undefined;
    try {
      batch = this.db.batch();
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
      }
      await batch.write();
    } catch (e) {
      // Idempotent: frees the native batch when a put threw before write() (write() closes it itself).
      await batch?.close().catch(() => undefined);
      this.failure ??= new StorageFailedError(
        `the database could not be written (${(e as Error).message}); the node writes nothing more: free space ` +
          'and restart it',
        { cause: e },
      );
      throw this.failure;
    }
  }

  /** Keys from `gte` (inclusive) to `lt` (exclusive), in key order, read in pages (safe to delete while iterating). */
  async *keys(gte: Uint8Array, lt: Uint8Array): AsyncGenerator<Uint8Array> {
    for await (const k of this.db.keys({ gte, lt })) yield k;
  }

  /** Compacts the key range (LevelDB then drops deleted entries from disk now rather than eventually). */
  async compact(start: Uint8Array, end: Uint8Array): Promise<void> {
    await this.db.compactRange(start, end);
  }

  /** Closes the database (flushes LevelDB's log). */
  async close(): Promise<void> {
    await this.db.close();
  }
}
