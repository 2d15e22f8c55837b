// `--dev`: the ten well-known dev accounts live in the key store (empty passphrase, light scrypt cost) and stay
// unlocked until exit. Their keys are derived from the mnemonic on every start rather than decrypted from the
// files, so a dev start costs no KDF work after the first one.
import { pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { privateKeyToAddress } from '../keys/secp.ts';
import { keyFileName, type KeyStore } from './keystore.ts';
import { LIGHT_SCRYPT } from './v3.ts';

/** One derived dev key. */
export interface DevKey {
  address: Uint8Array;
  privateKey: Uint8Array;
}

/**
 * The first `count` keys of a BIP-39 mnemonic (no BIP-39 passphrase) at m/44'/60'/0'/0/i. Same result as
 * keys/devAccounts.ts, about 6x faster: the seed comes from OpenSSL's PBKDF2 and the shared parent is derived once.
 */
export function deriveDevKeys(mnemonic: string, count: number): DevKey[] {
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
  const out: DevKey[] = [];
  for (let i = 0; i < count; i++) {
    const key = parent.deriveChild(i).privateKey;
    if (!key) throw new Error('HD derivation produced no private key');
    out.push({ privateKey: key, address: privateKeyToAddress(key) });
  }
  return out;
}

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
