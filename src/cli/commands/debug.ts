// `kestreld debug addr <hex|bech32>`: both forms of an address (the same 20 bytes, coin type 60), in Ethermint's
// layout (client/debug/debug.go), plus the validator-operator form.
import { toChecksumAddress } from '@ethereumjs/util';
import type { Command } from 'commander';
import { DEFAULT_BECH32_PREFIX } from '../../config/defaults.ts';
import { decodeAccAddress, toBech32 } from '../../primitives/bech32.ts';
import { bareHex } from '../../primitives/hex.ts';

/** Parses a 0x-hex, bare hex or bech32 (acc or valoper) address into its 20 bytes. */
export function parseAnyAddress(text: string, prefix: string): Uint8Array {
  if (/^(0x)?[0-9a-fA-F]{40}$/.test(text)) return Uint8Array.from(Buffer.from(text.replace(/^0x/, ''), 'hex'));
  for (const p of [prefix, `${prefix}valoper`]) {
    try {
      return decodeAccAddress(text, p);
    } catch {
      /* try the next form */
    }
  }
  throw new Error(`expected a valid hex or bech32 address (acc prefix ${prefix}), got '${text}'`);
}

/** The lines `debug addr` prints. */
export function describeAddress(addr: Uint8Array, prefix: string): string[] {
  const hex = bareHex(addr);
  return [
    `Address bytes: [${[...addr].join(' ')}]`,
    `Address (hex): ${hex.toUpperCase()}`,
    `Address (EIP-55): ${toChecksumAddress('0x' + hex)}`,
    `Bech32 Acc: ${toBech32(addr, prefix)}`,
    `Bech32 Val: ${toBech32(addr, `${prefix}valoper`)}`,
  ];
}

/** Registers `debug addr`. */
export function registerDebugCommands(program: Command): void {
  const debug = program.command('debug').description('tools for debugging addresses');
  debug
    .command('addr <address>')
    .description('convert an address between hex and bech32 (acc and valoper)')
    .option('--prefix <hrp>', 'bech32 account prefix', DEFAULT_BECH32_PREFIX)
    .action((address: string, opts: { prefix: string }) => {
      console.log(describeAddress(parseAnyAddress(address, opts.prefix), opts.prefix).join('\n'));
    });
}
