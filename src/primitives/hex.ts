// Hex helpers. Inside the node numbers are bigint and bytes are Uint8Array; hex exists only at the edges.
import { bareHex } from './bytes.ts';

export type Hex = `0x${string}`;

/** Encodes bytes as 0x-prefixed lower-case hex. */
export function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${bareHex(bytes)}` as Hex;
}

/** Encodes a non-negative integer as a JSON-RPC QUANTITY (no leading zeros, 0 → "0x0"). */
export function toQuantity(n: bigint | number): Hex {
  return `0x${n.toString(16)}`;
}

// One implementation of each helper, in bytes.ts (the engine's); re-exported for the node's many hex.ts importers.
export {
  bareHex,
  hexToBytes,
  bigintToMinBytes as bigintToBytes,
  bytesEqual,
  bytesToBigint,
  concatBytes,
  padLeft,
  readU64be,
  u64be,
} from './bytes.ts';
