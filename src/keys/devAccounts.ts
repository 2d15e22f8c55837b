// The well-known development accounts (the mnemonic Anvil and Hardhat use), derived at m/44'/60'/0'/0/i.
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { privateKeyToAddress } from './secp.ts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** One derived dev account. */
export interface DevAccount {
  privateKey: Uint8Array;
  address: Uint8Array;
}

/** Derives the first `count` accounts of a mnemonic on the Ethereum HD path. */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const key = root.derive(`m/44'/60'/0'/0/${i}`).privateKey;
    if (!key) throw new Error('HD derivation produced no private key');
    out.push({ privateKey: key, address: privateKeyToAddress(key) });
  }
  return out;
}
