// Block objects in geth's post-merge JSON shape, or Ethermint's observed values under --json-rpc.compat ethermint.
import type { BlockRecord } from '../../store/records.ts';
import { bytesToHex, toQuantity } from '../../primitives/hex.ts';
import { formatTx } from './tx.ts';

/** Which field values blocks and receipts carry. */
export type Compat = 'none' | 'ethermint';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Formats a block header and its txs (hashes, or full objects when `full`). */
export function formatBlock(b: BlockRecord, full: boolean, compat: Compat): Record<string, unknown> {
  const h = b.header;
  const ethermint = compat === 'ethermint';
  const out: Record<string, unknown> = {
    number: toQuantity(b.number),
    hash: bytesToHex(b.hash),
    parentHash: bytesToHex(h.parentHash),
    nonce: ethermint ? null : bytesToHex(h.nonce),
    sha3Uncles: ethermint ? null : bytesToHex(h.uncleHash),
    logsBloom: bytesToHex(h.logsBloom),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    stateRoot: bytesToHex(h.stateRoot),
    receiptsRoot: bytesToHex(h.receiptTrie),
    miner: ethermint ? ZERO_ADDRESS : bytesToHex(h.coinbase.bytes),
    difficulty: ethermint ? null : toQuantity(h.difficulty),
    totalDifficulty: ethermint ? null : '0x0',
    extraData: bytesToHex(h.extraData),
    size: toQuantity(b.size),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    timestamp: toQuantity(h.timestamp),
    mixHash: bytesToHex(h.mixHash),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = toQuantity(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToHex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = bytesToHex(h.requestsHash);
  out.transactions = full
    ? b.txs.map((tx, i) =>
        formatTx(tx, b.senders[i]!, b.txHashes[i]!, {
          blockHash: b.hash,
          blockNumber: b.number,
          index: i,
          timestamp: h.timestamp,
          baseFee: h.baseFeePerGas,
        }),
      )
    : b.txHashes.map((x) => bytesToHex(x));
  out.uncles = [];
  if (h.withdrawalsRoot !== undefined) out.withdrawals = [];
  return out;
}
