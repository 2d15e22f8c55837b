// Blocks, receipts and indexes on disk: encoding, decoding and a small cache of decoded recent blocks.
import { createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import type { BlockRecord, LogRecord, ReceiptRecord, TxLocation } from '../app/chain/types.ts';
import { keccak256 } from '../primitives/hash.ts';
import { bigintToBytes, bytesToBigint, concatBytes, readU64be, u64be } from '../primitives/hex.ts';
import type { KvOp, KvStore } from './kv.ts';
import { blockKey, canonKey, hashKey, metaKey, receiptsKey, txKey } from './schema.ts';

const HEAD = metaKey('head');

function txRlpItem(tx: TypedTransaction): Uint8Array | Uint8Array[] {
  return tx.type === 0 ? (tx.raw() as Uint8Array[]) : tx.serialize();
}

/** Size of the block's Ethereum RLP encoding (header, txs, no uncles, no withdrawals). */
export function blockSize(headerRaw: Uint8Array[], txs: TypedTransaction[]): bigint {
  return BigInt(RLP.encode([headerRaw, txs.map(txRlpItem), [], []]).length);
}

function encodeReceipts(rs: ReceiptRecord[]): Uint8Array {
  return RLP.encode(
    rs.map((r) => [
      bigintToBytes(BigInt(r.type)),
      bigintToBytes(BigInt(r.status)),
      bigintToBytes(r.cumulativeGasUsed),
      bigintToBytes(r.gasUsed),
      r.logs.map((l) => [l.address, l.topics, l.data]),
      r.bloom,
      r.contractAddress ?? new Uint8Array(0),
      r.from,
      r.to ?? new Uint8Array(0),
      bigintToBytes(r.effectiveGasPrice),
    ]),
  );
}

function decodeReceipts(b: Uint8Array): ReceiptRecord[] {
  const list = RLP.decode(b) as unknown as Uint8Array[][];
  return list.map((f) => {
    const logs = (f[4] as unknown as Uint8Array[][]).map(
      (l): LogRecord => ({ address: l[0]!, topics: l[1] as unknown as Uint8Array[], data: l[2]! }),
    );
    const r: ReceiptRecord = {
      type: Number(bytesToBigint(f[0]!)),
      status: bytesToBigint(f[1]!) === 1n ? 1 : 0,
      cumulativeGasUsed: bytesToBigint(f[2]!),
      gasUsed: bytesToBigint(f[3]!),
      logs,
      bloom: f[5]!,
      from: f[7]!,
      effectiveGasPrice: bytesToBigint(f[9]!),
    };
    if (f[6]!.length) r.contractAddress = f[6]!;
    if (f[8]!.length) r.to = f[8]!;
    return r;
  });
}

/** Reads and writes the chain's block-level records. */
export class ChainStore {
  private readonly blockCache = new Map<bigint, BlockRecord>();
  private readonly receiptCache = new Map<bigint, ReceiptRecord[]>();
  private static readonly CACHE = 512;

  constructor(private readonly kv: KvStore, private readonly common: Common) {}

  /** The stored head height, or undefined for an empty database. */
  headNumber(): bigint | undefined {
    const v = this.kv.get(HEAD);
    return v === undefined ? undefined : readU64be(v);
  }

  /** Batch ops that store a sealed block, its receipts and indexes, and move the head to it. */
  blockOps(block: BlockRecord, receipts: ReceiptRecord[]): KvOp[] {
    const n = block.number;
    const record = RLP.encode([block.header.serialize(), block.txs.map((t) => t.serialize()), block.senders]);
    const ops: KvOp[] = [
      { type: 'put', key: blockKey(n), value: record },
      { type: 'put', key: receiptsKey(n), value: encodeReceipts(receipts) },
      { type: 'put', key: canonKey(n), value: block.hash },
      { type: 'put', key: hashKey(block.hash), value: u64be(n) },
    ];
    block.txHashes.forEach((h, i) => {
      const loc = new Uint8Array(12);
      loc.set(u64be(n), 0);
      new DataView(loc.buffer).setUint32(8, i);
      ops.push({ type: 'put', key: txKey(h), value: loc });
    });
    ops.push({ type: 'put', key: HEAD, value: u64be(n) });
    return ops;
  }

  /** Records a freshly committed block in the caches (it is immutable from now on). */
  remember(block: BlockRecord, receipts: ReceiptRecord[]): void {
    this.put(this.blockCache, block.number, block);
    this.put(this.receiptCache, block.number, receipts);
  }

  private put<V>(m: Map<bigint, V>, k: bigint, v: V): void {
    if (m.size >= ChainStore.CACHE) {
      const first = m.keys().next().value;
      if (first !== undefined) m.delete(first);
    }
    m.set(k, v);
  }

  /** The block at a height, or undefined. */
  blockByNumber(n: bigint): BlockRecord | undefined {
    if (n < 0n) return undefined;
    const cached = this.blockCache.get(n);
    if (cached) return cached;
    const raw = this.kv.get(blockKey(n));
    if (!raw) return undefined;
    const [headerRlp, txList, senders] = RLP.decode(raw) as unknown as [Uint8Array, Uint8Array[], Uint8Array[]];
    const header = createBlockHeaderFromRLP(headerRlp, { common: this.common, setHardfork: false });
    const txs = txList.map((t) => createTxFromRLP(t, { common: this.common }));
    const block: BlockRecord = {
      header,
      hash: header.hash(),
      number: n,
      txs,
      txHashes: txs.map((t) => t.hash()),
      senders,
      size: blockSize(header.raw(), txs),
    };
    this.put(this.blockCache, n, block);
    return block;
  }

  /** What a log needs from its block (hash, timestamp, tx hashes) without decoding its transactions. */
  logContext(n: bigint): { hash: Uint8Array; timestamp: bigint; txHashes: Uint8Array[] } | undefined {
    const cached = this.blockCache.get(n);
    if (cached) return { hash: cached.hash, timestamp: cached.header.timestamp, txHashes: cached.txHashes };
    const raw = this.kv.get(blockKey(n));
    if (!raw) return undefined;
    const [headerRlp, txList] = RLP.decode(raw) as unknown as [Uint8Array, Uint8Array[]];
    const fields = RLP.decode(headerRlp) as unknown as Uint8Array[];
    const hash = this.common.customCrypto.keccak256 ?? keccak256;
    return { hash: hash(headerRlp), timestamp: bytesToBigint(fields[11]!), txHashes: txList.map((t) => hash(t)) };
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
    this.put(this.receiptCache, n, rs);
    return rs;
  }

  /** Where a transaction was mined, or undefined. */
  txLocation(hash: Uint8Array): TxLocation | undefined {
    const v = this.kv.get(txKey(hash));
    if (!v) return undefined;
    return { blockNumber: readU64be(v), index: new DataView(v.buffer, v.byteOffset + 8, 4).getUint32(0) };
  }
}

