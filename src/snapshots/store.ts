// State-sync snapshots on disk: every `interval` blocks the state at that height is written to
// <data>/snapshots/<height>/ (chunk files and meta.json), the `keepRecent` newest are kept, and CometBFT's
// ListSnapshots / LoadSnapshotChunk are answered from there (for peers that state-sync from this node).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Snapshot } from 'cosmjs-types/tendermint/abci/types';
import { StateWalk } from '../app/state/walk.ts';
import type { KvStore } from '../store/kv.ts';
import { blockKey, receiptsKey, trieKey } from '../store/schema.ts';
import { faultPoint } from '../store/faults.ts';
import {
  CHUNK_BYTES,
  ChunkWriter,
  describeChunks,
  KIND_BLOCK,
  KIND_HEAD,
  KIND_TRIE,
  RECENT_BLOCKS,
  SNAPSHOT_FORMAT,
  sha256,
} from './format.ts';
import { errorMessage } from '../errors/index.ts';

/** app.toml [state-sync]. */
export interface SnapshotConfig {
  /** A snapshot at every height divisible by this (0 = none). */
  interval: number;
  /** Snapshots kept. */
  keepRecent: number;
  /** Chunk size target in bytes (default CHUNK_BYTES; tests make it small). */
  chunkBytes?: number;
  /** Store reads per slice of the state walk (default SLICE_READS; tests make it small). */
  sliceReads?: number;
}

interface Meta {
  height: string;
  format: number;
  chunks: number;
  hash: string;
  metadata: string;
}

/** Store reads per slice of a snapshot's state walk (~10 ms) before it yields to the event loop. */
const SLICE_READS = 2_000;

/** A snapshot given up because the node is stopping. */
export class SnapshotAbandoned extends Error {
  constructor(height: bigint) {
    super(`snapshot of height ${height} abandoned: the node is stopping`);
    this.name = 'SnapshotAbandoned';
  }
}

/** Writes, lists and serves snapshots. */
export class SnapshotStore {
  /** The snapshot being written: its state root stays pinned against pruning until it ends. */
  private running: { height: bigint; stateRoot: Uint8Array; done: Promise<unknown> } | undefined;
  private stopping = false;

  constructor(
    private readonly dir: string,
    private readonly kv: KvStore,
    readonly config: SnapshotConfig,
    private readonly log: (line: string) => void = () => {},
  ) {
    // A snapshot cut short by a stop or crash left its temporary directory behind.
    if (existsSync(dir))
      for (const d of readdirSync(dir)) if (d.endsWith('.tmp')) rmSync(join(dir, d), { recursive: true, force: true });
  }

  /**
   * After each commit: starts a snapshot when the height is a multiple of the interval. It is written in slices
   * between blocks, so block production does not pause for the state walk; while one is being written, the next
   * interval height is skipped.
   */
  afterCommit(height: bigint, stateRoot: Uint8Array): void {
    if (this.config.interval <= 0 || height === 0n || height % BigInt(this.config.interval) !== 0n) return;
    if (this.stopping) return;
    if (this.running) {
      this.log(
        `snapshots: skipped height ${height}: the snapshot of height ${this.running.height} is still being written`,
      );
      return;
    }
    const done = this.create(height, stateRoot).then(
      () => {},
      (e: unknown) => {
        if (e instanceof SnapshotAbandoned) this.log(`snapshots: ${e.message}`);
        else this.log(`snapshots: height ${height} failed: ${errorMessage(e)}`);
      },
    );
    this.running = { height, stateRoot, done };
    void done.finally(() => {
      if (this.running?.done === done) this.running = undefined;
    });
  }

  /** The state roots a pruning sweep must keep: the one a snapshot in progress is still reading. */
  pinnedRoots(): Uint8Array[] {
    return this.running ? [this.running.stateRoot] : [];
  }

  /** Resolves once no snapshot is being written. */
  async whenIdle(): Promise<void> {
    await this.running?.done;
  }

  /** Stops taking snapshots; a snapshot in progress is abandoned (its temporary files removed) before this resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running?.done;
  }

  /**
   * Writes the snapshot of `height` (whose state root is `stateRoot`) and drops the ones beyond keepRecent. The
   * state walk yields to the event loop every SLICE_READS store reads; the root's state must stay stored until the
   * promise settles (pinnedRoots() says so to the pruner while afterCommit's snapshot runs).
   */
  async create(height: bigint, stateRoot: Uint8Array): Promise<Snapshot> {
    const t0 = performance.now();
    const final = join(this.dir, height.toString());
    const tmp = `${final}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    try {
      // Chunks go to disk as they close: the whole snapshot is never in memory.
      const hashes: Uint8Array[] = [];
      let bytes = 0;
      const w = new ChunkWriter(this.config.chunkBytes ?? CHUNK_BYTES, (chunk) => {
        writeFileSync(join(tmp, `chunk-${hashes.length}`), chunk);
        faultPoint('snapshot-chunk');
        hashes.push(sha256(chunk));
        bytes += chunk.length;
      });
      w.add({ kind: KIND_HEAD, height, stateRoot });
      const first = height >= RECENT_BLOCKS ? height - RECENT_BLOCKS + 1n : 0n;
      for (let n = first; n <= height; n++) {
        const block = this.kv.get(blockKey(n));
        const receipts = this.kv.get(receiptsKey(n));
        if (!block || !receipts) throw new Error(`snapshot ${height}: block ${n} is not stored`);
        w.add({ kind: KIND_BLOCK, block, receipts });
      }
      let entries = 0;
      const seen = new Set<string>();
      const walk = new StateWalk(
        stateRoot,
        (k) => this.kv.get(trieKey(k)),
        (key, value) => {
          const id = Buffer.from(key).toString('latin1');
          if (seen.has(id)) return false;
          seen.add(id);
          entries++;
          w.add({ kind: KIND_TRIE, key, value });
          return true;
        },
      );
      const slice = this.config.sliceReads ?? SLICE_READS;
      while (!walk.step(slice)) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.stopping) throw new SnapshotAbandoned(height);
      }
      w.finish();
      const { metadata, hash } = describeChunks(hashes);
      const meta: Meta = {
        height: height.toString(),
        format: SNAPSHOT_FORMAT,
        chunks: hashes.length,
        hash: Buffer.from(hash).toString('hex'),
        metadata: Buffer.from(metadata).toString('hex'),
      };
      writeFileSync(join(tmp, 'meta.json'), JSON.stringify(meta) + '\n');
      rmSync(final, { recursive: true, force: true });
      renameSync(tmp, final);
      this.log(
        `snapshots: wrote height ${height}: ${entries} state entries, ${hashes.length} chunk(s), ${bytes} bytes in ${(performance.now() - t0).toFixed(0)} ms`,
      );
      for (const old of this.heights().slice(this.config.keepRecent))
        rmSync(join(this.dir, old.toString()), { recursive: true, force: true });
      return this.toSnapshot(meta);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
  }

  /** Heights of the complete snapshots on disk, newest first. */
  heights(): bigint[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((d) => /^\d+$/.test(d) && existsSync(join(this.dir, d, 'meta.json')))
      .map((d) => BigInt(d))
      .sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  }

  /** ListSnapshots. */
  list(): Snapshot[] {
    return this.heights().map((h) =>
      this.toSnapshot(JSON.parse(readFileSync(join(this.dir, h.toString(), 'meta.json'), 'utf8')) as Meta),
    );
  }

  /** LoadSnapshotChunk: the chunk, or empty when there is no such snapshot or chunk. */
  chunk(height: bigint, format: number, index: number): Uint8Array {
    if (format !== SNAPSHOT_FORMAT || !Number.isSafeInteger(index) || index < 0) return new Uint8Array(0);
    const p = join(this.dir, height.toString(), `chunk-${index}`);
    return existsSync(p) ? readFileSync(p) : new Uint8Array(0);
  }

  private toSnapshot(m: Meta): Snapshot {
    return {
      height: BigInt(m.height),
      format: m.format,
      chunks: m.chunks,
      hash: Buffer.from(m.hash, 'hex'),
      metadata: Buffer.from(m.metadata, 'hex'),
    };
  }
}
