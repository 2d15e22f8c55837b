// The validator identity `status` reports: the secp256k1 key of config/priv_validator_key.json (Kestrel's
// validator key is an Ethereum key; its address is the etherbase).
import { readFileSync } from 'node:fs';
import secp256k1 from 'secp256k1';
import { hexToBytes } from '../primitives/hex.ts';

/** Address and compressed public key of the validator key file. */
export function readValidatorIdentity(path: string): { address: Uint8Array; pubKey: Uint8Array } {
  const v = JSON.parse(readFileSync(path, 'utf8')) as { address: string; priv_key: string };
  return { address: hexToBytes(v.address), pubKey: secp256k1.publicKeyCreate(hexToBytes(v.priv_key), true) };
}
