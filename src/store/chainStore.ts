// Blocks, receipts and indexes on disk: encoding, decoding and a small cache of decoded recent blocks.
import { createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { rlpEncode, rlpDecode, type RlpItem } from '../primitives/rlp.ts';
import { encodeTx, txFields } from '../primitives/tx/encode.ts';
import { decodeTransaction, type DecodedTx } from '../primitives/tx/decode.ts';
import type { Transaction } from '../primitives/tx/types.ts';
import { LRUCache } from 'lru-cache';
import { blockRecordBytes, receiptsBytes } from './recordSize.ts';
import type { BlockRecord, LogRecord, ReceiptRecord, TxLocation } from './records.ts';
import { bigintToBytes, bytesToBigint, readU64be, u64be } from '../primitives/hex.ts';
import type { KvOp, KvStore } from './kv.ts';
import { hash } from 'node:crypto';
import { logsBloom } from '../primitives/bloom.ts';
import { blockKey, blockLogsKey, canonKey, cometTxKey, hashKey, metaKey, receiptsKey, txKey } from './schema.ts';

const HEAD = metaKey('head');
/** The first stored block of a node that joined by state sync (absent: every block from genesis is stored). */
export const HISTORY_EARLIEST = metaKey('history-earliest');
/**
 * A forked chain's first block (number(8) ‖ hash(32)): the local record of the upstream's fork block, which answers
 * to the upstream's hash (its local header carries the local state root, so hashing it would give another hash).
 */
const FORK_POINT = metaKey('fork-point');

/** SHA-256 in one call (half the cost of a Hash object per tx on a block's commit path). */
function sha256(b: Uint8Array): Uint8Array {
  return hash('sha256', b, 'buffer');
}

function txRlpItem(tx: Transaction): Uint8Array | RlpItem[] {
  return tx.type === 0 ? txFields(tx) : encodeTx(tx);
}

/** Size of the block's Ethereum RLP encoding (header, txs, no uncles, no withdrawals). */
export function blockSize(headerRaw: Uint8Array[], txs: Transaction[]): bigint {
  return BigInt(rlpEncode([headerRaw, txs.map(txRlpItem), [], []]).length);
}

/** A nested list of byte strings, as the RLP encoder takes it. */
type RlpList = Array<Uint8Array | RlpList>;

const NO_BYTES = new Uint8Array(0);

/**
 * A block's receipts record. The bloom, a function of the logs, is stored empty and computed again when read: its
 * 256 bytes were most of a receipt's record (500 a block), written, logged and compacted for nothing.
 */
function encodeReceipts(rs: ReceiptRecord[]): Uint8Array {
  return rlpEncode(
    rs.map((r) => [
      bigintToBytes(BigInt(r.type)),
      bigintToBytes(BigInt(r.status)),
      bigintToBytes(r.cumulativeGasUsed),
      bigintToBytes(r.gasUsed),
      r.logs.map((l) => [l.address, l.topics, l.data]),
      NO_BYTES,
      r.contractAddress ?? new Uint8Array(0),
      r.from,
      r.to ?? new Uint8Array(0),
      bigintToBytes(r.effectiveGasPrice),
    ]),
  );
}

function decodeReceipts(b: Uint8Array): ReceiptRecord[] {
  const list = rlpDecode(b) as unknown as Uint8Array[][];
  return list.map((f) => {
    const logs = (f[4] as unknown as Uint8Array[][]).map((l): LogRecord => ({
      address: l[0]!,
      topics: l[1] as unknown as Uint8Array[],
      data: l[2]!,
    }));
    const r: ReceiptRecord = {
      type: Number(bytesToBigint(f[0]!)),
      status: bytesToBigint(f[1]!) === 1n ? 1 : 0,
      cumulativeGasUsed: bytesToBigint(f[2]!),
      gasUsed: bytesToBigint(f[3]!),
      logs,
      // Records written before the bloom was left out hold it.
      bloom: f[5]!.length === 256 ? f[5]! : logsBloom(logs),
      from: f[7]!,
      effectiveGasPrice: bytesToBigint(f[9]!),
    };
    if (f[6]!.length) r.contractAddress = f[6]!;
    if (f[8]!.length) r.to = f[8]!;
    return r;
  });
}

/** The logs of one tx of a block, with what a log entry needs of the tx. */
export interface TxLogs {
  txIndex: number;
  txHash: Uint8Array;
  logs: LogRecord[];
}

/** A block's logs in chain order, with what eth_getLogs needs of the block (no header or tx decoding). */
export interface BlockLogs {
  hash: Uint8Array;
  timestamp: bigint;
  /** Only the txs that emitted logs; a log's block-wide index counts the logs of the entries before it. */
  txs: TxLogs[];
}

/** A plain view of a LevelDB value: RLP decoding then makes plain subarrays, far cheaper than Buffer slices. */
function plain(b: Uint8Array): Uint8Array {
  return b instanceof Buffer ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : b;
}

function encodeBlockLogs(block: BlockRecord, receipts: ReceiptRecord[]): Uint8Array {
  const txs: RlpList = [];
  receipts.forEach((r, i) => {
    if (r.logs.length > 0) {
      txs.push([bigintToBytes(BigInt(i)), block.txHashes[i]!, r.logs.map((l) => [l.address, l.topics, l.data])]);
    }
  });
  return rlpEncode([bigintToBytes(block.header.timestamp), txs]);
}

function blockLogsOf(block: BlockRecord, receipts: ReceiptRecord[]): BlockLogs {
  const txs: TxLogs[] = [];
  receipts.forEach((r, txIndex) => {
    if (r.logs.length > 0) txs.push({ txIndex, txHash: block.txHashes[txIndex]!, logs: r.logs });
  });
  return { hash: block.hash, timestamp: block.header.timestamp, txs };
}

/** Most blocks (and receipt lists) cached, whatever their size: the newest ones are what reads and filters ask. */
const CACHED_BLOCKS = 512;

/** Byte limits of the block and receipt caches without a budget (tests, tools). */
const DEFAULT_CACHE_BYTES = { blocks: 64 * 1024 * 1024, receipts: 64 * 1024 * 1024 };

/** Reads and writes the chain's block-level records. */
export class ChainStore {
  private readonly blockCache: LRUCache<bigint, BlockRecord>;
  private readonly receiptCache: LRUCache<bigint, ReceiptRecord[]>;

  constructor(
    private readonly kv: KvStore,
    private readonly common: Common,
    /** Bytes the block and receipt caches may hold (shares of the [cache] budget). */
    cacheBytes: { blocks: number; receipts: number } = DEFAULT_CACHE_BYTES,
  ) {
    this.blockCache = new LRUCache({
      max: CACHED_BLOCKS,
      maxSize: cacheBytes.blocks,
      sizeCalculation: blockRecordBytes,
    });
    this.receiptCache = new LRUCache<bigint, ReceiptRecord[]>({
      max: CACHED_BLOCKS,
      maxSize: cacheBytes.receipts,
      sizeCalculation: receiptsBytes,
    });
    const v = kv.get(FORK_POINT);
    if (v !== undefined) this.forkPoint = { number: readU64be(v.subarray(0, 8)), hash: v.slice(8) };
  }

  /** A forked chain's first block: its height and the upstream hash it answers to (undefined when not forked). */
  forkPoint: { number: bigint; hash: Uint8Array } | undefined;

  /** Batch op recording the fork point (written with the forked chain's first block). */
  forkPointOps(n: bigint, hash: Uint8Array): KvOp[] {
    const value = new Uint8Array(40);
    value.set(u64be(n), 0);
    value.set(hash, 8);
    return [{ type: 'put', key: FORK_POINT, value }];
  }

  /** The stored head height, or undefined for an empty database. */
  headNumber(): bigint | undefined {
    const v = this.kv.get(HEAD);
    return v === undefined ? undefined : readU64be(v);
  }

  /**
   * Batch ops that store a sealed block, its receipts and indexes, and move the head to it; `encodedTxs`, when the
   * caller has them, are the txs' canonical encodings (saves re-encoding each tx).
   */
  blockOps(block: BlockRecord, receipts: ReceiptRecord[], encodedTxs?: Uint8Array[]): KvOp[] {
    const n = block.number;
    const encoded = encodedTxs ?? block.txs.map(encodeTx);
    const record = rlpEncode([block.header.serialize(), encoded, block.senders]);
    const ops: KvOp[] = [
      { type: 'put', key: blockKey(n), value: record },
      { type: 'put', key: receiptsKey(n), value: encodeReceipts(receipts) },
      { type: 'put', key: blockLogsKey(n), value: encodeBlockLogs(block, receipts) },
      { type: 'put', key: canonKey(n), value: block.hash },
      { type: 'put', key: hashKey(block.hash), value: u64be(n) },
    ];
    block.txHashes.forEach((h, i) => {
      ops.push({ type: 'put', key: cometTxKey(sha256(encoded[i]!)), value: h });
      const loc = new Uint8Array(12);
      loc.set(u64be(n), 0);
      new DataView(loc.buffer).setUint32(8, i);
      ops.push({ type: 'put', key: txKey(h), value: loc });
    });
    ops.push({ type: 'put', key: HEAD, value: u64be(n) });
    return ops;
  }

  /**
   * Batch ops that forget every block above `keep` (up to `head`): records, receipts, logs, hash and tx locations,
   * and move the head back to `keep`. Written in one batch, a crash leaves either the old or the new head.
   */
  rewindOps(keep: bigint, head: bigint): KvOp[] {
    const ops: KvOp[] = [];
    for (let n = keep + 1n; n <= head; n++) {
      const block = this.blockByNumber(n);
      if (!block) throw new Error(`store: block ${n} missing while rewinding to ${keep}`);
      for (const key of [blockKey(n), receiptsKey(n), blockLogsKey(n), canonKey(n), hashKey(block.hash)])
        ops.push({ type: 'del', key });
      for (const h of block.txHashes) ops.push({ type: 'del', key: txKey(h) });
      for (const t of block.txs) ops.push({ type: 'del', key: cometTxKey(sha256(encodeTx(t))) });
    }
    ops.push({ type: 'put', key: HEAD, value: u64be(keep) });
    return ops;
  }

  /**
   * Batch ops that replace a forked chain's only block (anvil_reset to another fork point): the old first block's
   * records go, the new one is stored with its fork point and becomes the head.
   */
  replaceFirstOps(old: BlockRecord, block: BlockRecord): KvOp[] {
    const n = old.number;
    const keys = [blockKey(n), receiptsKey(n), blockLogsKey(n), canonKey(n), hashKey(old.hash)];
    const ops: KvOp[] = keys.map((key) => ({ type: 'del', key }));
    return [...ops, ...this.blockOps(block, []), ...this.forkPointOps(block.number, block.hash)];
  }

  /** After replaceFirstOps was written: the caches and the fork point follow. */
  replacedFirst(old: BlockRecord, block: BlockRecord): void {
    this.blockCache.delete(old.number);
    this.receiptCache.delete(old.number);
    this.forkPoint = { number: block.number, hash: block.hash };
    this.remember(block, []);
  }

  /** Drops cached blocks above `keep` (after a rewind was written). */
  forgetAbove(keep: bigint): void {
    for (const m of [this.blockCache, this.receiptCache]) for (const n of [...m.keys()]) if (n > keep) m.delete(n);
  }

  /** Records a freshly committed block in the caches (it is immutable from now on). */
  remember(block: BlockRecord, receipts: ReceiptRecord[]): void {
    this.blockCache.set(block.number, block);
    this.receiptCache.set(block.number, receipts);
  }

  /** Estimated bytes the block and receipt caches hold. */
  get cacheBytes(): { blocks: number; receipts: number } {
    return { blocks: this.blockCache.calculatedSize, receipts: this.receiptCache.calculatedSize };
  }

  /** The lowest height whose block is stored (0 unless the node joined by state sync, the fork block if forked). */
  earliestBlock(): bigint {
    if (this.forkPoint) return this.forkPoint.number;
    const v = this.kv.get(HISTORY_EARLIEST);
    return v === undefined ? 0n : readU64be(v);
  }

  /** The block at a height, or undefined. */
  blockByNumber(n: bigint): BlockRecord | undefined {
    if (n < 0n) return undefined;
    const cached = this.blockCache.get(n);
    if (cached) return cached;
    const raw = this.kv.get(blockKey(n));
    if (!raw) return undefined;
    const [headerRlp, txList, senders] = rlpDecode(raw) as unknown as [Uint8Array, Uint8Array[], Uint8Array[]];
    const header = createBlockHeaderFromRLP(headerRlp, { common: this.common, setHardfork: false });
    // The senders were recovered when the txs were admitted; they are stored beside them, never recovered again.
    const decoded: DecodedTx[] = txList.map((t) => decodeTransaction(t));
    const txs = decoded.map((d) => d.tx);
    const block: BlockRecord = {
      header,
      hash: this.forkPoint?.number === n ? this.forkPoint.hash : header.hash(),
      number: n,
      txs,
      txHashes: decoded.map((d) => d.hash),
      senders,
      size: blockSize(header.raw(), txs),
    };
    this.blockCache.set(n, block);
    return block;
  }

  /**
   * A block's logs for eth_getLogs: from the caches when the block is recent, else from its logs record (written
   * since this record exists) without decoding receipts, the header or the txs; older databases fall back to that.
   */
  blockLogs(n: bigint): BlockLogs | undefined {
    const block = this.blockCache.get(n);
    const receipts = this.receiptCache.get(n);
    if (block && receipts) return blockLogsOf(block, receipts);
    const hash = this.kv.get(canonKey(n));
    if (!hash) return undefined;
    const raw = this.kv.get(blockLogsKey(n));
    if (!raw) {
      const b = this.blockByNumber(n);
      const rs = this.receipts(n);
      return b && rs ? blockLogsOf(b, rs) : undefined;
    }
    const [time, txList] = rlpDecode(plain(raw)) as unknown as [
      Uint8Array,
      Array<[Uint8Array, Uint8Array, Uint8Array[][]]>,
    ];
    return {
      hash,
      timestamp: bytesToBigint(time),
      txs: txList.map(([i, txHash, logs]) => ({
        txIndex: Number(bytesToBigint(i)),
        txHash,
        logs: logs.map((l): LogRecord => ({ address: l[0]!, topics: l[1] as unknown as Uint8Array[], data: l[2]! })),
      })),
    };
  }

  /** The height of a block hash, or undefined. */
  numberOfHash(hash: Uint8Array): bigint | undefined {
    const v = this.kv.get(hashKey(hash));
    return v === undefined ? undefined : readU64be(v);
  }

  /** The receipts of the block at a height, or undefined. */
  receipts(n: bigint): ReceiptRecord[] | undefined {
    const cached = this.receiptCache.get(n);
    if (cached) return cached;
    const raw = this.kv.get(receiptsKey(n));
    if (!raw) return undefined;
    const rs = decodeReceipts(raw);
    this.receiptCache.set(n, rs);
    return rs;
  }

  /** The Ethereum hash of a mined tx by its CometBFT hash (SHA-256 of its bytes), or undefined. */
  txHashByCometHash(sha: Uint8Array): Uint8Array | undefined {
    return this.kv.get(cometTxKey(sha));
  }

  /** Where a transaction was mined, or undefined. */
  txLocation(hash: Uint8Array): TxLocation | undefined {
    const v = this.kv.get(txKey(hash));
    if (!v) return undefined;
    return { blockNumber: readU64be(v), index: new DataView(v.buffer, v.byteOffset + 8, 4).getUint32(0) };
  }
}
