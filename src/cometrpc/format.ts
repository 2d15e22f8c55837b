// CometBFT v0.38 JSON shapes (rpc/core/types/responses.go): 64-bit integers as strings, hashes as upper-case hex
// without 0x, byte payloads as base64. Kestrel's blocks are Ethereum blocks: the block id is the Ethereum block
// hash, data_hash the transactions root, last_results_hash the receipts root, proposer the block's coinbase.
import { sha256 } from '@noble/hashes/sha2.js';
import type { BlockRecord } from '../store/records.ts';
import { bareHex } from '../primitives/hex.ts';
import { encodeTx } from '../primitives/tx/encode.ts';

/** CometBFT's block protocol version (v0.38). */
export const BLOCK_PROTOCOL = '11';

/**
 * node_info.version: the CometBFT release whose RPC this server answers like. Clients choose their decoder by it
 * (cosmjs picks Comet38Client for "0.38.*"); Kestrel's own version is in abci_info.
 */
export const COMET_RPC_VERSION = '0.38.17';

/** Upper-case hex without 0x, as CometBFT prints HexBytes. */
export function hexUpper(b: Uint8Array): string {
  return bareHex(b).toUpperCase();
}

/** Base64, as CometBFT prints []byte. */
export function base64(b: Uint8Array): string {
  return Buffer.from(b).toString('base64');
}

/** RFC 3339 time of a block (whole seconds: Ethereum timestamps have no fraction). */
export function blockTime(block: BlockRecord): string {
  return new Date(Number(block.header.timestamp) * 1000).toISOString().replace('.000Z', 'Z');
}

/** CometBFT's tx hash: SHA-256 of the tx bytes. */
export function txHash(tx: Uint8Array): string {
  return hexUpper(sha256(tx));
}

const EMPTY_BLOCK_ID = { hash: '', parts: { total: 0, hash: '' } };

function blockId(block: BlockRecord) {
  // One part per block; the part-set hash is stood in for by the block hash (no block gossip in solo mode).
  return { hash: hexUpper(block.hash), parts: { total: 1, hash: hexUpper(block.hash) } };
}

/** What formatting a block needs besides the block itself. */
export interface BlockFormatContext {
  chainId: string;
  parent: BlockRecord | undefined;
  /** App hash after the parent block (CometBFT puts the previous block's result in the header). */
  appHash: Uint8Array;
}

/** CometBFT's block header of a Kestrel block. */
function formatHeader(block: BlockRecord, ctx: BlockFormatContext) {
  const parent = ctx.parent;
  const h = block.header;
  return {
    version: { block: BLOCK_PROTOCOL, app: '0' },
    chain_id: ctx.chainId,
    height: block.number.toString(),
    time: blockTime(block),
    last_block_id: parent ? blockId(parent) : EMPTY_BLOCK_ID,
    last_commit_hash: '',
    data_hash: hexUpper(h.transactionsTrie),
    validators_hash: '',
    next_validators_hash: '',
    consensus_hash: '',
    app_hash: hexUpper(ctx.appHash),
    last_results_hash: hexUpper(h.receiptTrie),
    evidence_hash: '',
    proposer_address: hexUpper(h.coinbase.bytes),
  };
}

/** A `blockchain` entry: {block_id, block_size, header, num_txs}. */
export function formatBlockMeta(block: BlockRecord, ctx: BlockFormatContext) {
  return {
    block_id: blockId(block),
    block_size: block.size.toString(),
    header: formatHeader(block, ctx),
    num_txs: String(block.txs.length),
  };
}

/** The `block` result: {block_id, block}. */
export function formatBlockResult(block: BlockRecord, ctx: BlockFormatContext) {
  const parent = ctx.parent;
  const h = block.header;
  const header = formatHeader(block, ctx);
  const lastCommit = parent
    ? {
        height: parent.number.toString(),
        round: 0,
        block_id: blockId(parent),
        signatures: [
          {
            block_id_flag: 2,
            validator_address: hexUpper(h.coinbase.bytes),
            timestamp: blockTime(block),
            signature: null,
          },
        ],
      }
    : { height: '0', round: 0, block_id: EMPTY_BLOCK_ID, signatures: [] };
  return {
    block_id: blockId(block),
    block: {
      header,
      data: { txs: block.txs.map((tx) => base64(encodeTx(tx))) },
      evidence: { evidence: [] },
      last_commit: lastCommit,
    },
  };
}
