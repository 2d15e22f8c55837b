// State-sync snapshots on disk: every `interval` blocks the state at that height is written to
// <data>/snapshots/<height>/ (chunk files and meta.json), the `keepRecent` newest are kept, and CometBFT's
// ListSnapshots / LoadSnapshotChunk are answered from there (for peers that state-sync from this node).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Snapshot } from 'cosmjs-types/tendermint/abci/types';
import { walkState } from '../app/state/walk.ts';
import type { KvStore } from '../store/kv.ts';
import { blockKey, receiptsKey, trieKey } from '../store/schema.ts';
import {
  CHUNK_BYTES,
  ChunkWriter,
  describeChunks,
  KIND_BLOCK,
  KIND_HEAD,
  KIND_TRIE,
  RECENT_BLOCKS,
  SNAPSHOT_FORMAT,
} from './format.ts';

/** app.toml [state-sync]. */
export interface SnapshotConfig {
  /** A snapshot at every height divisible by this (0 = none). */
  interval: number;
  /** Snapshots kept. */
  keepRecent: number;
  /** Chunk size target in bytes (default CHUNK_BYTES; tests make it small). */
  chunkBytes?: number;
}

interface Meta {
  height: string;
  format: number;
  chunks: number;
  hash: string;
  metadata: string;
}

/** Writes, lists and serves snapshots. */
export class SnapshotStore {
  constructor(
    private readonly dir: string,
    private readonly kv: KvStore,
    readonly config: SnapshotConfig,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** After each commit: takes a snapshot when the height is a multiple of the interval. */
  afterCommit(height: bigint, stateRoot: Uint8Array): void {
    if (this.config.interval <= 0 || height === 0n || height % BigInt(this.config.interval) !== 0n) return;
    this.create(height, stateRoot);
  }

  /** Writes the snapshot of `height` (whose state root is `stateRoot`) and drops the ones beyond keepRecent. */
  create(height: bigint, stateRoot: Uint8Array): Snapshot {
    const t0 = performance.now();
    const w = new ChunkWriter(this.config.chunkBytes ?? CHUNK_BYTES);
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
    walkState(
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
    const chunks = w.finish();
    const { metadata, hash } = describeChunks(chunks);
    const meta: Meta = {
      height: height.toString(),
      format: SNAPSHOT_FORMAT,
      chunks: chunks.length,
      hash: Buffer.from(hash).toString('hex'),
      metadata: Buffer.from(metadata).toString('hex'),
    };
    const final = join(this.dir, height.toString());
    const tmp = `${final}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    chunks.forEach((c, i) => writeFileSync(join(tmp, `chunk-${i}`), c));
    writeFileSync(join(tmp, 'meta.json'), JSON.stringify(meta) + '\n');
    rmSync(final, { recursive: true, force: true });
    renameSync(tmp, final);
    const bytes = chunks.reduce((s, c) => s + c.length, 0);
    this.log(
      `snapshots: wrote height ${height}: ${entries} state entries, ${chunks.length} chunk(s), ${bytes} bytes in ${(performance.now() - t0).toFixed(0)} ms`,
    );
    for (const old of this.heights().slice(this.config.keepRecent))
      rmSync(join(this.dir, old.toString()), { recursive: true, force: true });
    return this.toSnapshot(meta);
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
