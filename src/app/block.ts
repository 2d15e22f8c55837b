// Ethereum-format block assembly: header fields, transaction/receipt tries and the block bloom.
import { createBlockHeader, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { keccak256 } from '../primitives/hash.ts';
import { concatBytes, u64be } from '../primitives/hex.ts';
import { indexedTrieRoot, indexedTrieRootOf, type Hash } from '../primitives/trie/root.ts';
import { bigintToMinBytes } from '../primitives/bytes.ts';
import { rlpEncode, rlpEncodeAfter, rlpHeaderLength } from '../primitives/rlp.ts';
import type { ReceiptRecord } from '../store/records.ts';

/** Inputs that fix a block's execution context before its transactions run. */
export interface BlockContext {
  number: bigint;
  parentHash: Uint8Array;
  timestamp: bigint;
  coinbase: Uint8Array;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  mixHash: Uint8Array;
}

/** The Common's keccak-256 (the node's WebAssembly one), else the JS one. */
export function keccakOf(common: Common): Hash {
  return common.customCrypto.keccak256 ?? keccak256;
}

/** Deterministic prevRandao: every validator derives the same value from the parent. */
export function deriveMixHash(parentHash: Uint8Array, number: bigint, hash: Hash = keccak256): Uint8Array {
  return hash(concatBytes(parentHash, u64be(number)));
}

function contextFields(ctx: BlockContext) {
  return {
    number: ctx.number,
    parentHash: ctx.parentHash,
    timestamp: ctx.timestamp,
    coinbase: ctx.coinbase,
    gasLimit: ctx.gasLimit,
    baseFeePerGas: ctx.baseFeePerGas,
    mixHash: ctx.mixHash,
    difficulty: 0n,
  };
}

/** The execution context of a sealed block (to replay its txs, or to run a call on top of it). */
export function contextOf(h: BlockHeader): BlockContext {
  return {
    number: h.number,
    parentHash: h.parentHash,
    timestamp: h.timestamp,
    coinbase: h.coinbase.bytes,
    gasLimit: h.gasLimit,
    baseFeePerGas: h.baseFeePerGas ?? 0n,
    mixHash: h.mixHash,
  };
}

/** The header used as EVM context while the block's transactions execute (roots not known yet). */
export function contextHeader(ctx: BlockContext, common: Common): BlockHeader {
  return createBlockHeader(contextFields(ctx), { common, setHardfork: false });
}

const STATUS_OK = Uint8Array.of(1);
const STATUS_FAILED = new Uint8Array(0);
const ZERO_BYTE = Uint8Array.of(0);

/**
 * The consensus encoding of a receipt (type byte ‖ rlp([status, cumulativeGasUsed, bloom, logs])), byte for byte
 * ethereumjs' encodeReceipt (a zero gas total is its single zero byte), with the engine's one-pass RLP encoder;
 * written into `scratch` when given and large enough (see rlpEncodeAfter: the receipts root only hashes it).
 */
export function encodeConsensusReceipt(r: ReceiptRecord, scratch?: Uint8Array): Uint8Array {
  const gas = r.cumulativeGasUsed === 0n ? ZERO_BYTE : bigintToMinBytes(r.cumulativeGasUsed);
  const logs = r.logs.map((l) => [l.address, l.topics, l.data]);
  const item = [r.status === 0 ? STATUS_FAILED : STATUS_OK, gas, r.bloom, logs];
  if (r.type === 0) return rlpEncodeAfter(item, 0, scratch);
  const out = rlpEncodeAfter(item, 1, scratch);
  out[0] = r.type;
  return out;
}

/** Root of the receipts trie (key rlp(index), value the consensus receipt encoding). */
export function receiptsRoot(receipts: ReceiptRecord[], hash: Hash = keccak256): Uint8Array {
  // Each encoding is hashed into its leaf before the next is written, so one scratch serves them all.
  const scratch = new Uint8Array(4096);
  return indexedTrieRootOf(receipts.length, (i) => encodeConsensusReceipt(receipts[i]!, scratch), hash);
}

/** Root of the transactions trie (key rlp(index), value each tx's canonical encoding, computed once per block). */
export function transactionsRoot(encodedTxs: Uint8Array[], hash: Hash = keccak256): Uint8Array {
  return indexedTrieRoot(encodedTxs, hash);
}

/** OR of the receipts' blooms. */
export function blockBloom(receipts: ReceiptRecord[]): Uint8Array {
  const bloom = new Uint8Array(256);
  const out = new DataView(bloom.buffer);
  // Four bytes at a time: a 500-tx block ORs 128 KB of blooms.
  for (const r of receipts) {
    const b = new DataView(r.bloom.buffer, r.bloom.byteOffset, 256);
    for (let i = 0; i < 256; i += 4) out.setUint32(i, out.getUint32(i) | b.getUint32(i));
  }
  return bloom;
}

/**
 * Size of the block's Ethereum RLP encoding (header, txs, no uncles, no withdrawals), from the txs' canonical
 * encodings (what store/chainStore.ts's blockSize encodes the block for, without serialising each tx again): a
 * legacy tx is its own RLP list, embedded as is; a typed one (type byte first) is a byte string.
 */
export function blockSizeOf(headerRaw: Uint8Array[], encodedTxs: readonly Uint8Array[]): bigint {
  let txsPayload = 0;
  for (const e of encodedTxs) txsPayload += e[0]! >= 0xc0 ? e.length : rlpHeaderLength(e.length) + e.length;
  const header = rlpEncode(headerRaw).length;
  // Two empty lists (uncles, withdrawals) of one byte each.
  const payload = header + rlpHeaderLength(txsPayload) + txsPayload + 2;
  return BigInt(rlpHeaderLength(payload) + payload);
}

/** The sealed header once execution has produced the state root and receipts. */
export async function sealHeader(
  ctx: BlockContext,
  common: Common,
  sealed: { stateRoot: Uint8Array; encodedTxs: Uint8Array[]; receipts: ReceiptRecord[]; gasUsed: bigint },
): Promise<BlockHeader> {
  const hash = keccakOf(common);
  return createBlockHeader(
    {
      ...contextFields(ctx),
      stateRoot: sealed.stateRoot,
      transactionsTrie: transactionsRoot(sealed.encodedTxs, hash),
      receiptTrie: receiptsRoot(sealed.receipts, hash),
      logsBloom: blockBloom(sealed.receipts),
      gasUsed: sealed.gasUsed,
    },
    { common, setHardfork: false },
  );
}
