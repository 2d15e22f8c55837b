// Pre-signs legacy EIP-155 transactions with the native secp256k1 binding, so signing thousands of transactions
// costs milliseconds and stays out of the timed part. Legacy transactions with a fixed gas price are accepted by
// every node in the bench (Kestrel, Anvil, Hardhat, Ganache).
import { encode } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import secp256k1 from 'secp256k1';
import { DEV_MNEMONIC, deriveAccounts } from '../../src/keys/devAccounts.ts';

/** Gas price of every bench transaction: far above every node's dev base fee (1 gwei or less). */
export const GAS_PRICE = 100_000_000_000n;

/** A dev account: private key and 0x address. */
export interface Account {
  privateKey: Uint8Array;
  address: string;
}

/** One signed transaction, ready for eth_sendRawTransaction. */
export interface SignedTx {
  raw: string;
  hash: string;
  from: string;
  nonce: number;
}

/** The transaction fields the bench varies. */
export interface TxFields {
  nonce: number;
  gas: bigint;
  to: string | null;
  value: bigint;
  data: string;
}

/** 0x-prefixed lowercase hex of bytes. */
export function toHex(b: Uint8Array): string {
  return `0x${Buffer.from(b).toString('hex')}`;
}

/** The first `n` accounts of the well-known dev mnemonic (the one every node in the bench is started with). */
export function devAccounts(n = 10): Account[] {
  return deriveAccounts(DEV_MNEMONIC, n).map((a) => ({ privateKey: a.privateKey, address: toHex(a.address) }));
}

/** Signs a legacy transaction for `chainId` (EIP-155). */
export function signLegacy(account: Account, chainId: bigint, f: TxFields): SignedTx {
  const to = f.to ?? '0x';
  const unsigned = encode([BigInt(f.nonce), GAS_PRICE, f.gas, to, f.value, f.data, chainId, 0n, 0n]);
  const { signature, recid } = secp256k1.ecdsaSign(keccak_256(unsigned), account.privateKey);
  const r = BigInt(toHex(signature.subarray(0, 32)));
  const s = BigInt(toHex(signature.subarray(32, 64)));
  const v = chainId * 2n + 35n + BigInt(recid);
  const raw = encode([BigInt(f.nonce), GAS_PRICE, f.gas, to, f.value, f.data, v, r, s]);
  return { raw: toHex(raw), hash: toHex(keccak_256(raw)), from: account.address, nonce: f.nonce };
}
