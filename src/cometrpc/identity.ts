// The validator identity `status` reports: the secp256k1 key of config/priv_validator_key.json (Kestrel's
// validator key is an Ethereum key; its address is the etherbase).
import { readFileSync } from 'node:fs';
import { secp256k1 } from '../primitives/secp256k1.ts';
import { hexToBytes } from '../primitives/hex.ts';

/**
 * Address and compressed public key of the validator key file. The key is computed on the first read of `pubKey`
 * (the first `status` or `validators` call), not when the RPC server starts: it needs the secp256k1 library.
 */
export function readValidatorIdentity(path: string): { readonly address: Uint8Array; readonly pubKey: Uint8Array } {
  const v = JSON.parse(readFileSync(path, 'utf8')) as { address: string; priv_key: string };
  const privateKey = hexToBytes(v.priv_key);
  if (privateKey.length !== 32) throw new Error(`${path}: priv_key is not a 32-byte secp256k1 key`);
  let pubKey: Uint8Array | undefined;
  return {
    address: hexToBytes(v.address),
    get pubKey() {
      return (pubKey ??= secp256k1().publicKeyCreate(privateKey, true));
    },
  };
}
