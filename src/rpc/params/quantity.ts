// QUANTITY codecs: 0x-prefixed hex integers without leading zeros, bounded, decoded to bigint or number.
// Error texts follow geth's hexutil (wrapped in Go's json.UnmarshalTypeError wording).
import type { Codec } from './codec.ts';
import { ParamError, codec } from './codec.ts';
import { UnmarshalTypeError, expectHexString, has0xPrefix, isHexDigits } from './data.ts';

/** Parses QUANTITY text of at most `bits` bits; errors name `goType`. Accepts a "0X" prefix and any digit case. */
export function parseQuantity(s: string, bits: number, goType: string): bigint {
  const fail = (reason: string): never => {
    throw new UnmarshalTypeError(reason, goType);
  };
  if (s.length === 0) fail('empty hex string');
  if (!has0xPrefix(s)) fail('hex string without 0x prefix');
  const digits = s.slice(2);
  if (digits.length === 0) fail('hex string "0x"');
  if (digits.length > 1 && digits[0] === '0') fail('hex number with leading zero digits');
  if (digits.length > Math.ceil(bits / 4)) fail(`hex number > ${bits} bits`);
  if (!isHexDigits(digits)) fail('invalid hex string');
  const n = BigInt('0x' + digits);
  if (n >> BigInt(bits) !== 0n) fail(`hex number > ${bits} bits`);
  return n;
}

/** QUANTITY ≤ 2^64-1 → bigint (geth hexutil.Uint64). */
export const uint64: Codec<bigint> = codec((raw) => {
  const goType = 'hexutil.Uint64';
  return parseQuantity(expectHexString(raw, goType), 64, goType);
});

/** QUANTITY ≤ 2^256-1 → bigint (geth hexutil.Big). */
export const uint256: Codec<bigint> = codec((raw) => {
  const goType = '*hexutil.Big';
  return parseQuantity(expectHexString(raw, goType), 256, goType);
});

/** QUANTITY ≤ 2^53-1 → number, for indexes (geth hexutil.Uint, capped to JS safe integers). */
export const uintIndex: Codec<number> = codec((raw) => {
  const goType = 'hexutil.Uint';
  return Number(parseQuantity(expectHexString(raw, goType), 53, goType));
});

/** eth_feeHistory blockCount: hex or decimal string, or a JSON integer, ≤ 2^64-1 → bigint (math.HexOrDecimal64). */
export const blockCount: Codec<bigint> = codec((raw) => {
  const bad = (text: string): never => {
    throw new ParamError(`invalid hex or decimal integer ${JSON.stringify(text)}`);
  };
  let n: bigint;
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw) || raw < 0) bad(String(raw));
    n = BigInt(raw);
  } else if (typeof raw === 'string') {
    if (has0xPrefix(raw)) {
      const digits = raw.slice(2);
      if (digits.length === 0 || !isHexDigits(digits)) bad(raw);
      n = BigInt('0x' + digits);
    } else {
      if (!/^[0-9]+$/.test(raw)) bad(raw);
      n = BigInt(raw);
    }
  } else {
    return bad(JSON.stringify(raw) ?? String(raw));
  }
  if (n > 0xffffffffffffffffn) bad(String(raw));
  return n;
});
