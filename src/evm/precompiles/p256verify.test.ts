// 0x100 P256VERIFY (EIP-7951): vectors made here with @noble/curves, and every edge case the EIP lists (input
// length, r and s in range, the key a field point on the curve and not the point at infinity, R'.x reduced mod n).
// geth's p256Verify.json (782 Wycheproof-derived vectors) gave the same answers when checked by hand.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { p256 } from '@noble/curves/nist.js';
import type { PurePrecompile } from '../types.ts';
import { bareHex, bigintToFixedBytes } from '../../primitives/bytes.ts';
import { initPrecompiles, precompilesFor } from './index.ts';
import { P256VERIFY_GAS } from './p256verify.ts';

const Point = p256.Point;
const N = Point.CURVE().n;
const P = Point.CURVE().p;
const G = Point.BASE;
const word = (n: bigint) => bigintToFixedBytes(n, 32);
const ONE = '00'.repeat(31) + '01';

/** hash ‖ r ‖ s ‖ qx ‖ qy. */
function input(h: bigint, r: bigint, s: bigint, qx: bigint, qy: bigint): Uint8Array {
  const out = new Uint8Array(160);
  [h, r, s, qx, qy].forEach((v, i) => out.set(word(v), 32 * i));
  return out;
}

/** A signature of `h` by a fixed key, r and s from noble (no low-s normalisation). */
function signed(h: bigint, sk = 0x1234567890abcdefn) {
  const sig = p256.Signature.fromBytes(p256.sign(word(h), word(sk), { prehash: false, lowS: false }), 'compact');
  const q = G.multiply(sk).toAffine();
  return { h, r: sig.r, s: sig.s, qx: q.x, qy: q.y };
}

const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;
const inv = (a: bigint) => p256.Point.Fn.inv(mod(a, N));

/** The first curve point with x ≥ `from` (even y). */
function pointAt(from: bigint): InstanceType<typeof Point> {
  for (let x = from; ; x++) {
    try {
      return Point.fromBytes(Uint8Array.of(0x02, ...word(x)));
    } catch {
      // x³ − 3x + b is no square mod p: the next x.
    }
  }
}

/** A signature (h, r, s) valid under Q, from R = u1·G + u2·Q: r = R.x mod n, s = r / u2, h = u1·s. */
function forge(Q: InstanceType<typeof Point>, u1: bigint, u2: bigint) {
  const r = mod(G.multiply(u1).add(Q.multiply(u2)).toAffine().x, N);
  const s = mod(r * inv(u2), N);
  return { h: mod(u1 * s, N), r, s };
}

describe('0x100 P256VERIFY', () => {
  let pc: PurePrecompile;
  const run = (i: Uint8Array) => bareHex(pc.run(i, 'Osaka')!);
  before(async () => {
    await initPrecompiles();
    pc = precompilesFor('Osaka').get(0x100n)!;
  });

  test('is an Osaka precompile only, at 6900 gas whatever the input', () => {
    assert.equal(precompilesFor('Prague').get(0x100n), undefined);
    assert.equal(P256VERIFY_GAS, 6900n);
    for (const len of [0, 159, 160, 161, 1000]) assert.equal(pc.gas(new Uint8Array(len), 'Osaka'), 6900n);
  });

  test('valid signatures return 32-byte 1; the wrong hash, key or signature returns nothing', () => {
    for (const h of [0n, 1n, 0xdeadbeefn, N - 1n, (1n << 256n) - 1n]) {
      const v = signed(h);
      assert.equal(run(input(v.h, v.r, v.s, v.qx, v.qy)), ONE, `hash ${h}`);
      assert.equal(run(input(v.h ^ 1n, v.r, v.s, v.qx, v.qy)), '', `altered hash ${h}`);
      assert.equal(run(input(v.h, v.r, v.s ^ 1n, v.qx, v.qy)), '', `altered s ${h}`);
      const other = G.multiply(99n).toAffine();
      assert.equal(run(input(v.h, v.r, v.s, other.x, other.y)), '', `other key ${h}`);
    }
  });

  test('a high s is valid (no malleability rule), and so is its low twin', () => {
    const v = signed(42n);
    assert.equal(run(input(v.h, v.r, v.s, v.qx, v.qy)), ONE);
    assert.equal(run(input(v.h, v.r, N - v.s, v.qx, v.qy)), ONE);
  });

  test('an input of any length but 160 returns nothing', () => {
    const v = signed(7n);
    const ok = input(v.h, v.r, v.s, v.qx, v.qy);
    assert.equal(run(ok), ONE);
    assert.equal(run(ok.subarray(0, 159)), '');
    const longer = new Uint8Array(161);
    longer.set(ok);
    assert.equal(run(longer), '');
    assert.equal(run(new Uint8Array(0)), '');
  });

  test('r and s must lie in [1, n − 1]', () => {
    const v = signed(7n);
    for (const [r, s] of [
      [0n, v.s],
      [v.r, 0n],
      [N, v.s],
      [v.r, N],
      [v.r + N, v.s],
      [v.r, v.s + N],
    ] as const) {
      if (r >= 1n << 256n || s >= 1n << 256n) continue;
      assert.equal(run(input(v.h, r, s, v.qx, v.qy)), '', `r ${r} s ${s}`);
    }
  });

  test('the key must be a point of the curve with coordinates below p, and not (0, 0)', () => {
    const v = signed(7n);
    assert.equal(run(input(v.h, v.r, v.s, 0n, 0n)), '');
    assert.equal(run(input(v.h, v.r, v.s, v.qx, v.qy ^ 1n)), '', 'off the curve');
    assert.equal(run(input(v.h, v.r, v.s, v.qx, P - v.qy)), '', 'the negated key');
    assert.equal(run(input(v.h, v.r, v.s, P, v.qy)), '', 'x = p');
    assert.equal(run(input(v.h, v.r, v.s, v.qx, P)), '', 'y = p');
    assert.equal(run(input(v.h, v.r, v.s, (1n << 256n) - 1n, v.qy)), '', 'x = 2^256 − 1');
    // A key with a small x, signed for by choosing u1 and u2 (no secret key needed): x + p still fits in 32 bytes
    // and names the same point mod p, but is no field element.
    const q = pointAt(3n);
    const f = forge(q, 0x1111n, 0x2222n);
    assert.equal(run(input(f.h, f.r, f.s, q.toAffine().x, q.toAffine().y)), ONE);
    assert.equal(run(input(f.h, f.r, f.s, q.toAffine().x + P, q.toAffine().y)), '', 'x + p');
  });

  test("R'.x is reduced mod n before it is compared with r", () => {
    // A point R whose x lies in [n, p), and a key Q for which (r, s) with r = R.x − n signs h: Q = (s·R − h·G) / r.
    const R = pointAt(N + 12345n);
    const rx = R.toAffine().x;
    assert.ok(rx >= N && rx < P);
    const r = rx - N;
    const h = 0xabcdefn;
    const s = 0x1234n;
    const Q = R.multiply(s).subtract(G.multiply(h)).multiply(inv(r)).toAffine();
    assert.equal(run(input(h, r, s, Q.x, Q.y)), ONE);
    // The unreduced x is no valid r (it is not below n).
    assert.equal(run(input(h, rx, s, Q.x, Q.y)), '');
  });

  test('a signature whose R′ is the point at infinity fails', () => {
    // h·s⁻¹·G + r·s⁻¹·Q = O when Q = −(h / r)·G: any r, s then lead to infinity.
    const h = 5n;
    const r = 7n;
    const s = 11n;
    const Q = G.multiply(mod(-h * inv(r), N)).toAffine();
    assert.equal(run(input(h, r, s, Q.x, Q.y)), '');
  });
});
