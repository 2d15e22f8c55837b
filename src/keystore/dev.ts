// `--dev`: the ten well-known dev accounts live in the key store (empty passphrase, DEV_KEY_SCRYPT) and stay
// unlocked until exit. Their keys are derived from the mnemonic (or read from the derivation a previous start cached
// in the home, keystore/devCache.ts) rather than decrypted from the files, so a dev start costs no KDF work after
// the first one.
import type { DevAccount } from '../keys/devAccounts.ts';
import { keyFileName, type KeyStore } from './keystore.ts';
import { LIGHT_SCRYPT, type ScryptParams } from './v3.ts';

/**
 * Cost of the dev accounts' own files. Their passphrase is empty and their keys come from a published mnemonic, so
 * the KDF protects nothing: geth's light N with p = 1 keeps them readable by any v3 tool at a sixth of the light
 * cost (ten of them were a large part of a fresh dev home's first start, before any server listened).
 */
export const DEV_KEY_SCRYPT: ScryptParams = { ...LIGHT_SCRYPT, p: 1 };

/** One derived dev key (see keys/devAccounts.ts deriveAccounts). */
export type DevKey = DevAccount;

/**
 * Writes the missing dev key files (empty passphrase, DEV_KEY_SCRYPT), holds every dev key unlocked, lists them first.
 * The files are not fsynced (ten fsyncs were 10–80 ms of a fresh home's start on a busy disk): a start derives the
 * keys anyway and writes any file that is missing or unreadable again.
 */
export async function installDevKeys(ks: KeyStore, keys: DevKey[]): Promise<void> {
  const base = Date.now();
  await Promise.all(
    keys.map(async (k, i) => {
      if (ks.has(k.address)) return;
      // Distinct, ordered times so the files sort in account order even when written in the same millisecond.
      await ks.storeKey(k.privateKey, '', DEV_KEY_SCRYPT, keyFileName(k.address, new Date(base), i), false);
    }),
  );
  for (const k of keys) ks.holdUnlocked(k.address, k.privateKey);
  ks.setLeading(keys.map((k) => k.address));
}
