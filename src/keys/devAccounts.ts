// The well-known development accounts (the mnemonic Anvil and Hardhat use), derived at m/44'/60'/0'/0/i.
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { secp256k1 } from '../primitives/secp256k1.ts';
import { privateKeyToAddress } from './secp.ts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** One derived dev account. */
export interface DevAccount {
  privateKey: Uint8Array;
  address: Uint8Array;
}

const HARDENED = 0x8000_0000;

/** A BIP-32 extended private key. */
interface ExtendedKey {
  key: Uint8Array;
  chainCode: Uint8Array;
}

function masterKey(seed: Uint8Array): ExtendedKey {
  const i = createHmac('sha512', 'Bitcoin seed').update(seed).digest();
  const key = Uint8Array.from(i.subarray(0, 32));
  if (!secp256k1().privateKeyVerify(key)) throw new Error('BIP-32: the seed gives an invalid master key');
  return { key, chainCode: i.subarray(32) };
}

/** BIP-32 CKDpriv on the native curve (the pure-JS one spends most of a node's start building its tables). */
function childKey(parent: ExtendedKey, index: number): ExtendedKey {
  const data = Buffer.alloc(37);
  if (index >= HARDENED) data.set(parent.key, 1);
  else data.set(secp256k1().publicKeyCreate(parent.key, true), 0);
  data.writeUInt32BE(index, 33);
  const i = createHmac('sha512', parent.chainCode).update(data).digest();
  // parse256(IL) + k mod n; throws when IL >= n or the sum is 0 (probability below 2^-127).
  const key = secp256k1().privateKeyTweakAdd(Uint8Array.from(parent.key), i.subarray(0, 32));
  return { key, chainCode: i.subarray(32) };
}

/**
 * What this process derived, by count and mnemonic: a `--dev` start on a new home derives the accounts for the
 * genesis and again for the key store.
 */
const derived = new Map<string, DevAccount[]>();

/**
 * The first `count` accounts of a BIP-39 mnemonic (no BIP-39 passphrase) on the Ethereum HD path. The seed comes
 * from OpenSSL's PBKDF2 (BIP-39's own derivation, ~6x faster than the pure-JS one) and the shared parent
 * m/44'/60'/0'/0 is derived once.
 */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  const key = `${count} ${mnemonic}`;
  let accounts = derived.get(key);
  if (accounts === undefined) derived.set(key, (accounts = derive(mnemonic, count)));
  // Copies: a caller may keep or change its arrays.
  return accounts.map((a) => ({ privateKey: Uint8Array.from(a.privateKey), address: Uint8Array.from(a.address) }));
}

function derive(mnemonic: string, count: number): DevAccount[] {
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  let parent = masterKey(seed);
  for (const index of [44 + HARDENED, 60 + HARDENED, 0 + HARDENED, 0]) parent = childKey(parent, index);
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const key = childKey(parent, i).key;
    out.push({ privateKey: key, address: privateKeyToAddress(key) });
  }
  return out;
}
