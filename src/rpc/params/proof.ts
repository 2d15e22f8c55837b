// eth_getProof's storage key list. geth echoes each key back as a 32-byte hash when it was given as one and as a
// QUANTITY otherwise, so the codec keeps that fact beside the decoded slot.
import type { Codec } from './codec.ts';
import { codec } from './codec.ts';
import { UnmarshalTypeError, has0xPrefix, jsonKind, storageSlot } from './data.ts';

/** A decoded storage key: the 32-byte slot and whether the caller wrote all 32 bytes. */
export interface ProofKey {
  slot: Uint8Array;
  full: boolean;
}

/** An array of storage keys (hex integers of up to 32 bytes). */
export const proofKeys: Codec<ProofKey[]> = codec((raw) => {
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), '[]string');
  return raw.map((k: unknown): ProofKey => {
    const slot = storageSlot.decode(k);
    const text = k as string;
    const digits = has0xPrefix(text) ? text.length - 2 : text.length;
    return { slot, full: Math.ceil(digits / 2) === 32 };
  });
});
