// The chain's stored records as the rest of the node sees them (decoded, bigint/Uint8Array only).
import type { BlockHeader } from '@ethereumjs/block';
import type { Transaction } from '../primitives/tx/types.ts';

/** One EVM log. */
export interface LogRecord {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** A transaction's receipt with the fields Ethereum receipts carry plus sender/recipient. */
export interface ReceiptRecord {
  type: number;
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  logs: LogRecord[];
  bloom: Uint8Array;
  contractAddress?: Uint8Array;
  from: Uint8Array;
  to?: Uint8Array;
  effectiveGasPrice: bigint;
}

/** A sealed block: its header, transactions with their recovered senders, and its encoded size. */
export interface BlockRecord {
  header: BlockHeader;
  hash: Uint8Array;
  number: bigint;
  txs: Transaction[];
  txHashes: Uint8Array[];
  senders: Uint8Array[];
  size: bigint;
}

/** Where a mined transaction sits. */
export interface TxLocation {
  blockNumber: bigint;
  index: number;
}
