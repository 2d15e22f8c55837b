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

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/**
 * Decodes a bech32 account address with the Cosmos SDK's error wording (AccAddressFromBech32), so Cosmos users
 * see the messages their tools print: `decoding bech32 failed: invalid checksum (expected … got …)`,
 * `invalid Bech32 prefix; expected kestrel, got cosmos`, `empty address string is not allowed`.
 */
export function decodeAccAddress(text: string, prefix: string): Uint8Array {
  if (text.trim() === '') throw new Error('empty address string is not allowed');
  const fail = (why: string): never => {
    throw new Error(`decoding bech32 failed: ${why}`);
  };
  if (text.length < 8 || text.length > 1023) fail(`invalid bech32 string length ${text.length}`);
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 33 || c > 126) fail(`invalid character in string: '${ch}'`);
  }
  const lower = text.toLowerCase();
  if (lower !== text && text.toUpperCase() !== text) fail('string not all lowercase or all uppercase');
  const one = lower.lastIndexOf('1');
  if (one < 1 || one + 7 > lower.length) fail(`invalid separator index ${one}`);
  const hrp = lower.slice(0, one);
  const words: number[] = [];
  for (const ch of lower.slice(one + 1)) {
    const w = CHARSET.indexOf(ch);
    if (w < 0) fail(`invalid character not part of charset: ${ch.codePointAt(0)}`);
    words.push(w);
  }
  if (bech32.decodeUnsafe(lower, 1023) === undefined) {
    const expected = bech32.encode(hrp, words.slice(0, -6), 1023).slice(-6);
    fail(`invalid checksum (expected ${expected} got ${lower.slice(-6)})`);
  }
  const bytes = bech32.fromWordsUnsafe(words.slice(0, -6));
  if (bytes === undefined) fail('invalid padding');
  if (hrp !== prefix) throw new Error(`invalid Bech32 prefix; expected ${prefix}, got ${hrp}`);
  if (bytes!.length !== 20) throw new Error(`invalid address length; expected 20 bytes, got ${bytes!.length}`);
  return Uint8Array.from(bytes!);
}
