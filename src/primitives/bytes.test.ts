// bigintToMinBytes against the hex round trip it replaced, around each branch's edges (2^48, 2^256).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bigintToMinBytes } from './bytes.ts';

/** The previous implementation: minimal hex, even length. */
function viaHex(v: bigint): string {
  if (v === 0n) return '';
  const h = v.toString(16);
  return h.length % 2 === 0 ? h : '0' + h;
}

describe('bigintToMinBytes', () => {
  it('is the minimal big-endian encoding at every bit length and the branch edges', () => {
    const values: bigint[] = [0n, 2n ** 48n - 1n, 2n ** 48n, 10n ** 24n, 2n ** 256n - 1n, 2n ** 256n, 2n ** 300n + 5n];
    for (let b = 0n; b <= 300n; b++) values.push(1n << b, (1n << b) - 1n, (1n << b) + 0x5an);
    let x = 0x9e3779b97f4a7c15n;
    for (let i = 0; i < 500; i++) {
      x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 256n) - 1n);
      values.push(x >> BigInt(i % 256));
    }
    for (const v of values) assert.equal(Buffer.from(bigintToMinBytes(v)).toString('hex'), viaHex(v), String(v));
  });
});
