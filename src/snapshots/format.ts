// Snapshot format 1: what a node needs to continue a chain from height H without its history. The payload is a
// sequence of records, cut at record boundaries into chunks (each chunk is one RLP list of records, so a chunk
// can be checked and applied on its own):
//   [0x01, H, stateRoot]                       first record: the height and the EVM state root at H
//   [0x02, blockRecord, receiptsRecord]        the stored block and receipts of H − 255 … H (BLOCKHASH, fees)
//   [0x03, key, value]                         one trie-store entry reachable from stateRoot (node or code)
// The bank store is not in it: it follows from genesis, which the joining node has. The snapshot's metadata is
// the RLP list of the chunks' SHA-256 hashes; its hash is the SHA-256 of the metadata.
import { createHash } from 'node:crypto';
import { rlpEncode, rlpDecode } from '../primitives/rlp.ts';

/** The only format this node writes and reads. */
export const SNAPSHOT_FORMAT = 1;
/** Blocks before the snapshot height that travel with it (the EVM's BLOCKHASH window). */
export const RECENT_BLOCKS = 256n;
/** Chunk size target (CometBFT's limit is 16 MiB per chunk). */
export const CHUNK_BYTES = 4 * 1024 * 1024;

export const KIND_HEAD = 1;
export const KIND_BLOCK = 2;
export const KIND_TRIE = 3;

/** One decoded record. */
export type SnapshotRecord =
  | { kind: typeof KIND_HEAD; height: bigint; stateRoot: Uint8Array }
  | { kind: typeof KIND_BLOCK; block: Uint8Array; receipts: Uint8Array }
  | { kind: typeof KIND_TRIE; key: Uint8Array; value: Uint8Array };

/** SHA-256. */
export function sha256(b: Uint8Array): Uint8Array {
  return createHash('sha256').update(b).digest();
}

function u64(n: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}

/** Encodes one record. */
export function encodeRecord(r: SnapshotRecord): Uint8Array[] {
  if (r.kind === KIND_HEAD) return [Uint8Array.of(KIND_HEAD), u64(r.height), r.stateRoot];
  if (r.kind === KIND_BLOCK) return [Uint8Array.of(KIND_BLOCK), r.block, r.receipts];
  return [Uint8Array.of(KIND_TRIE), r.key, r.value];
}

/** Decodes a chunk into its records; throws on anything malformed. */
export function decodeChunk(chunk: Uint8Array): SnapshotRecord[] {
  const list = rlpDecode(chunk) as unknown;
  if (!Array.isArray(list)) throw new Error('snapshot chunk is not a list');
  return list.map((item: unknown): SnapshotRecord => {
    if (!Array.isArray(item) || item.length !== 3 || !item.every((x) => x instanceof Uint8Array)) {
      throw new Error('snapshot record is not [kind, a, b]');
    }
    const [kind, a, b] = item as [Uint8Array, Uint8Array, Uint8Array];
    if (kind.length !== 1) throw new Error('snapshot record kind');
    if (kind[0] === KIND_HEAD) {
      if (a.length !== 8 || b.length !== 32) throw new Error('snapshot head record');
      return { kind: KIND_HEAD, height: Buffer.from(a).readBigUInt64BE(0), stateRoot: b };
    }
    if (kind[0] === KIND_BLOCK) return { kind: KIND_BLOCK, block: a, receipts: b };
    if (kind[0] === KIND_TRIE) return { kind: KIND_TRIE, key: a, value: b };
    throw new Error(`snapshot record kind ${kind[0]}`);
  });
}

/** Cuts records into chunks of about CHUNK_BYTES, handing each to `sink` as it closes. */
export class ChunkWriter {
  private current: Uint8Array[][] = [];
  private size = 0;

  constructor(
    private readonly target: number,
    private readonly sink: (chunk: Uint8Array) => void,
  ) {}

  /** Adds a record, closing the current chunk first when it would grow past the target. */
  add(r: SnapshotRecord): void {
    const enc = encodeRecord(r);
    const n = enc.reduce((s, x) => s + x.length + 9, 0);
    if (this.size + n > this.target && this.current.length > 0) this.flush();
    this.current.push(enc);
    this.size += n;
  }

  /** Closes the last chunk. */
  finish(): void {
    if (this.current.length > 0) this.flush();
  }

  private flush(): void {
    this.sink(rlpEncode(this.current));
    this.current = [];
    this.size = 0;
  }
}

/** Metadata (the list of the chunks' SHA-256 hashes) and the snapshot hash. */
export function describeChunks(chunkHashes: Uint8Array[]): { metadata: Uint8Array; hash: Uint8Array } {
  const metadata = rlpEncode(chunkHashes);
  return { metadata, hash: sha256(metadata) };
}

/** The chunk hashes a snapshot's metadata lists (throws when malformed). */
export function chunkHashes(metadata: Uint8Array, chunks: number): Uint8Array[] {
  const list = rlpDecode(metadata) as unknown;
  if (
    !Array.isArray(list) ||
    list.length !== chunks ||
    !list.every((h) => h instanceof Uint8Array && h.length === 32)
  ) {
    throw new Error('snapshot metadata is not the list of chunk hashes');
  }
  return list as Uint8Array[];
}
