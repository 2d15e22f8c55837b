// `--dev`: the ten well-known dev accounts live in the key store (empty passphrase, DEV_KEY_SCRYPT) and stay
// unlocked until exit. Their keys are derived from the mnemonic (or read from the derivation a previous start cached
// in the home, keystore/devCache.ts) rather than decrypted from the files, so a dev start costs no KDF work after
// the first one.
import type { DevAccount } from '../keys/devAccounts.ts';
import { keyFileName, type KeyStore } from './keystore.ts';
import type { ScryptParams } from './v3.ts';

/**
 * Cost of the dev accounts' own files. Their passphrase is empty and their keys come from a published mnemonic, so
 * the KDF protects nothing: the smallest cost every v3 reader accepts (geth, ethers and this key store take any
 * power of two n >= 2). At geth's light n (4096, p = 1) the ten files were over 300 ms of CPU before a new dev
 * home's node listened.
 */
export const DEV_KEY_SCRYPT: ScryptParams = { n: 2, r: 8, p: 1 };

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
