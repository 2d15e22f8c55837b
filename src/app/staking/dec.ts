// Cosmos LegacyDec arithmetic on bigints scaled by 10^18: the truncating and the rounding (half to even) forms the
// SDK's distribution keeper uses, so rewards come out to the last unit as on a Cosmos chain.
import { DEC } from './types.ts';

/** a × b, truncated. */
export function mulTrunc(a: bigint, b: bigint): bigint {
  return (a * b) / DEC;
}

/** a ÷ b, truncated (b ≠ 0). */
export function quoTrunc(a: bigint, b: bigint): bigint {
  return (a * DEC) / b;
}

/** n ÷ d rounded half to even (d > 0, n ≥ 0), as LegacyDec's chopPrecisionAndRound. */
export function divRound(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  const twice = 2n * r;
  if (twice < d) return q;
  if (twice > d) return q + 1n;
  return q % 2n === 0n ? q : q + 1n;
}

/** a × b, rounded. */
export function mulRound(a: bigint, b: bigint): bigint {
  return divRound(a * b, DEC);
}

/** A Dec's integer part and the fraction left. */
export function truncateDecimal(a: bigint): [bigint, bigint] {
  const whole = a / DEC;
  return [whole, a - whole * DEC];
}
