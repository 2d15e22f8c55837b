// `--dev`: the ten well-known dev accounts live in the key store (empty passphrase, light scrypt cost) and stay
// unlocked until exit. Their keys are derived from the mnemonic on every start rather than decrypted from the
// files, so a dev start costs no KDF work after the first one.
import type { DevAccount } from '../keys/devAccounts.ts';
import { keyFileName, type KeyStore } from './keystore.ts';
import { LIGHT_SCRYPT } from './v3.ts';

/** One derived dev key (see keys/devAccounts.ts deriveAccounts). */
export type DevKey = DevAccount;

/** Writes the missing dev key files (empty passphrase, light cost), holds every dev key unlocked, lists them first. */
export async function installDevKeys(ks: KeyStore, keys: DevKey[]): Promise<void> {
  const base = Date.now();
  await Promise.all(
    keys.map(async (k, i) => {
      if (ks.has(k.address)) return;
      // Distinct, ordered times so the files sort in account order even when written in the same millisecond.
      await ks.storeKey(k.privateKey, '', LIGHT_SCRYPT, keyFileName(k.address, new Date(base), i));
    }),
  );
  for (const k of keys) ks.holdUnlocked(k.address, k.privateKey);
  ks.setLeading(keys.map((k) => k.address));
}
