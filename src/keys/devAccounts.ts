// The well-known development accounts (the mnemonic Anvil and Hardhat use), derived at m/44'/60'/0'/0/i.
import { pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { privateKeyToAddress } from './secp.ts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** One derived dev account. */
export interface DevAccount {
  privateKey: Uint8Array;
  address: Uint8Array;
}

/**
 * The first `count` accounts of a BIP-39 mnemonic (no BIP-39 passphrase) on the Ethereum HD path. The seed comes
 * from OpenSSL's PBKDF2 (BIP-39's own derivation, ~6x faster than the pure-JS one) and the shared parent
 * m/44'/60'/0'/0 is derived once.
 */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const key = parent.deriveChild(i).privateKey;
    if (!key) throw new Error('HD derivation produced no private key');
    out.push({ privateKey: key, address: privateKeyToAddress(key) });
  }
  return out;
}
