// personal_ parameter codecs that no other namespace uses: the unlock duration and raw private keys.
import { secp256k1 } from '../../../primitives/secp256k1.ts';
import { KeyStoreError } from '../../../errors/index.ts';
import { hexToBytes } from '../../../primitives/hex.ts';
import { codec, type Codec } from '../../params/codec.ts';
import { UnmarshalTypeError, has0xPrefix, isHexDigits, jsonKind } from '../../params/data.ts';
import { parseQuantity } from '../../params/quantity.ts';

/** geth's default unlock duration (SPEC §8). */
export const DEFAULT_UNLOCK_SECONDS = 300n;

// geth converts the seconds to a time.Duration (int64 nanoseconds) and refuses what does not fit.
const MAX_UNLOCK_SECONDS = (2n ** 63n - 1n) / 1_000_000_000n;

/** Unlock duration in seconds: a JSON number (as geth's *uint64 takes it) or, leniently, a hex QUANTITY. */
export const unlockSeconds: Codec<bigint> = codec((raw) => {
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw) || raw < 0) throw new UnmarshalTypeError(`number ${raw}`, 'uint64');
    return BigInt(raw);
  }
  if (typeof raw === 'string') return parseQuantity(raw, 64, 'uint64');
  throw new UnmarshalTypeError(jsonKind(raw), 'uint64');
});

/** Seconds → the key store's duration: undefined for 0 (until the process exits); too large is an error. */
export function unlockDurationMs(seconds: bigint): number | undefined {
  if (seconds > MAX_UNLOCK_SECONDS) throw new KeyStoreError('unlock duration too large');
  return seconds === 0n ? undefined : Number(seconds) * 1000;
}

/** A raw private key as personal_importRawKey takes it: 64 hex digits, with or without 0x (geth wants it without). */
export function parseRawKey(text: string): Uint8Array {
  const digits = has0xPrefix(text) ? text.slice(2) : text;
  if (!isHexDigits(digits)) {
    const bad = [...digits].find((c) => !/[0-9a-fA-F]/.test(c))!;
    throw new KeyStoreError(`invalid hex character '${bad}' in private key`);
  }
  if (digits.length !== 64) throw new KeyStoreError('invalid length, need 256 bits');
  const key = hexToBytes('0x' + digits.toLowerCase());
  if (!secp256k1().privateKeyVerify(key)) throw new KeyStoreError('invalid private key');
  return key;
}

/** Rejects wallet URLs without a scheme the way geth's accounts.parseURL does. */
export function checkWalletUrl(url: string): void {
  const parts = url.split('://');
  if (parts.length !== 2 || parts[0] === '') throw new KeyStoreError('protocol scheme missing');
}
