// Validator and account addresses as the precompiles take them: a valoper bech32 string or 0x-hex, both naming
// the operator's 20 account bytes (Cosmos EVM accepts either).
import { fromBech32, toBech32 } from '../../../primitives/bech32.ts';
import { bareHex } from '../../../primitives/hex.ts';
import { ModuleError } from '../env.ts';

/** Parses a validator address string (prefix + "valoper" bech32, or 0x-hex). */
export function parseValidatorAddress(text: string, prefix: string): Uint8Array {
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return Uint8Array.from(Buffer.from(text.slice(2), 'hex'));
  try {
    return fromBech32(text, `${prefix}valoper`);
  } catch (e) {
    throw new ModuleError(`invalid validator address ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
}

/** Parses an account address string (bech32 with the chain's prefix, or 0x-hex). */
export function parseAccountAddress(text: string, prefix: string): Uint8Array {
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return Uint8Array.from(Buffer.from(text.slice(2), 'hex'));
  try {
    return fromBech32(text, prefix);
  } catch (e) {
    throw new ModuleError(`invalid address ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
}

/** A validator's valoper bech32 address. */
export function valoper(addr: Uint8Array, prefix: string): string {
  return toBech32(addr, `${prefix}valoper`);
}

/** EIP-55-less lower-case 0x-hex (the precompiles' string form of an operator address, as Cosmos EVM prints hex). */
export function hexAddress(addr: Uint8Array): string {
  return `0x${bareHex(addr)}`;
}
