// The LevelDB key schema, in one place. Every key starts with a one-byte prefix.
import { concatBytes, u64be } from '../primitives/hex.ts';

const P_TRIE = 0x73; // 's' + trie node / code key (content-addressed, never overwritten)
/** The first byte of every trieKey (a writer building many keys at once lays them out itself). */
export const TRIE_PREFIX = P_TRIE;
const P_CANON = 0x68; // 'h' + number(8) → block hash
const P_HASH = 0x48; // 'H' + hash(32) → number(8)
const P_BLOCK = 0x62; // 'b' + number(8) → stored block record (RLP)
const P_RECEIPTS = 0x72; // 'r' + number(8) → stored receipts record (RLP)
const P_TX = 0x74; // 't' + txHash(32) → number(8) ‖ index(4)
const P_META = 0x6d; // 'm' + name → metadata
const P_LOGS = 0x4c; // 'L' + number(8) → the block's logs with what eth_getLogs needs of their txs (RLP)
const P_LOGIDX = 0x6c; // 'l' + item(1+0|20|32) + bucket(4) → set of blocks in the bucket holding a matching log

/** Key of a trie node or contract code blob. */
export function trieKey(k: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(P_TRIE), k);
}
/** Key of the canonical hash at a height. */
export function canonKey(n: bigint): Uint8Array {
  return concatBytes(Uint8Array.of(P_CANON), u64be(n));
}
/** Key of the number of a block hash. */
export function hashKey(hash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(P_HASH), hash);
}
/** Key of a stored block. */
export function blockKey(n: bigint): Uint8Array {
  return concatBytes(Uint8Array.of(P_BLOCK), u64be(n));
}
/** Key of a block's receipts. */
export function receiptsKey(n: bigint): Uint8Array {
  return concatBytes(Uint8Array.of(P_RECEIPTS), u64be(n));
}
/** Key of a block's logs record (timestamp, and per tx with logs: index, hash, logs). */
export function blockLogsKey(n: bigint): Uint8Array {
  return concatBytes(Uint8Array.of(P_LOGS), u64be(n));
}
/** Key of a transaction's location. */
export function txKey(hash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(P_TX), hash);
}
/** Key of a metadata entry. */
export function metaKey(name: string): Uint8Array {
  return concatBytes(Uint8Array.of(P_META), new TextEncoder().encode(name));
}

/** Key of a log-index posting set: the blocks of one bucket that hold a log with this address/topic item. */
export function logIndexKey(item: Uint8Array, bucket: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, bucket);
  return concatBytes(Uint8Array.of(P_LOGIDX), item, b);
}

const P_BANK = 0x42; // 'B' + address(20) → RLP [[denom, amount], …] of the account's non-EVM denoms, sorted by denom

/** Key of an account's non-EVM bank balances. */
export function bankAccountKey(addr: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(P_BANK), addr);
}

const P_COMET_TX = 0x63; // 'c' + sha256(tx bytes)(32) → the tx's Ethereum hash: CometBFT's tx hash, for its `tx` RPC

/** Key of the Ethereum hash of a tx by its CometBFT hash (SHA-256 of its bytes). */
export function cometTxKey(sha: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(P_COMET_TX), sha);
}

const P_TOUCHED = 0x70; // 'p' + address(20) [+ slot(32)] → empty: accounts and slots blocks wrote (dev toolkit only)

/** Key recording that blocks wrote an account (`slot` absent) or one of its storage slots, for anvil_dumpState. */
export function touchedKey(addr: Uint8Array, slot?: Uint8Array): Uint8Array {
  return slot === undefined
    ? concatBytes(Uint8Array.of(P_TOUCHED), addr)
    : concatBytes(Uint8Array.of(P_TOUCHED), addr, slot);
}

/** The range of every touchedKey. */
export const TOUCHED_RANGE = { gte: Uint8Array.of(P_TOUCHED), lt: Uint8Array.of(P_TOUCHED + 1) };
