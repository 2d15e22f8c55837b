// bech32 account addresses ↔ 20-byte EVM addresses (the same bytes, coin type 60).
import { bech32 } from 'bech32';

/** Encodes 20 address bytes with a bech32 prefix (e.g. kestrel1…). */
export function toBech32(addr: Uint8Array, prefix: string): string {
  return bech32.encode(prefix, bech32.toWords(addr));
}

/** Decodes a bech32 address, checking the prefix; throws Error with a clear message. */
export function fromBech32(text: string, prefix: string): Uint8Array {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(text);
  } catch (e) {
    throw new Error(`invalid bech32 address "${text}": ${(e as Error).message}`);
  }
  if (decoded.prefix !== prefix) {
    throw new Error(`invalid bech32 address "${text}": expected prefix ${prefix}, got ${decoded.prefix}`);
  }
  const bytes = Uint8Array.from(bech32.fromWords(decoded.words));
  if (bytes.length !== 20) throw new Error(`invalid bech32 address "${text}": ${bytes.length} bytes, want 20`);
  return bytes;
}
