// Param codecs of the dev toolkit methods. Anvil and Hardhat accept numbers either as JSON integers or as hex
// strings (leading zeros allowed: hardhat-network-helpers pads some), so these codecs do too.
import { padLeft, hexToBytes } from '../../../primitives/hex.ts';
import { ParamError, codec, type Codec } from '../../params/codec.ts';
import { jsonKind } from '../../params/data.ts';

/** A non-negative integer of at most `bits` bits, as a JSON integer or a 0x-hex string. */
export function looseUint(bits: number): Codec<bigint> {
  return codec((raw) => {
    let n: bigint;
    if (typeof raw === 'number') {
      if (!Number.isSafeInteger(raw) || raw < 0) throw new ParamError(`expected a non-negative integer, got ${raw}`);
      n = BigInt(raw);
    } else if (typeof raw === 'string' && /^0[xX][0-9a-fA-F]+$/.test(raw)) {
      n = BigInt('0x' + raw.slice(2));
    } else {
      throw new ParamError(`expected a hex quantity or an integer, got ${jsonKind(raw)} ${JSON.stringify(raw)}`);
    }
    if (n >> BigInt(bits) !== 0n) throw new ParamError(`number > ${bits} bits`);
    return n;
  });
}

/** A 64-bit count, timestamp or nonce. */
export const u64 = looseUint(64);
/** A 256-bit balance. */
export const u256 = looseUint(256);

/** A 32-byte word given as hex of at most 32 bytes (left-padded), as anvil_setStorageAt takes its value. */
export const word32: Codec<Uint8Array> = codec((raw) => {
  if (typeof raw !== 'string' || !/^0[xX][0-9a-fA-F]*$/.test(raw))
    throw new ParamError(`expected 0x-prefixed hex, got ${JSON.stringify(raw)}`);
  let digits = raw.slice(2);
  if (digits.length % 2 !== 0) digits = '0' + digits;
  if (digits.length > 64) throw new ParamError('hex string too long, want at most 32 bytes');
  return padLeft(hexToBytes('0x' + digits.toLowerCase()), 32);
});

/** evm_mine's optional argument: a timestamp, or Anvil's `{timestamp?, blocks?}`. */
export interface MineParams {
  blocks: bigint;
  timestamp?: bigint;
}

/** Decodes evm_mine's argument. */
export const mineParams: Codec<MineParams> = codec((raw) => {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const o = raw as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (k !== 'blocks' && k !== 'timestamp') throw new ParamError(`unknown field "${k}"`);
    const blocks = o['blocks'] === undefined || o['blocks'] === null ? 1n : u64.decode(o['blocks']);
    const timestamp = o['timestamp'] === undefined || o['timestamp'] === null ? undefined : u64.decode(o['timestamp']);
    return { blocks, timestamp };
  }
  return { blocks: 1n, timestamp: u64.decode(raw) };
});
