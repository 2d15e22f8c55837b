// Known-answer tests of every precompile, run once over the native/wasm backends and once over the forced
// pure-JS fallbacks (loadBackends('js')), so both paths are exercised on every run.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { bn254 } from '@noble/curves/bn254.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Address, Fork, PurePrecompile } from '../types.ts';
import { bareHex, bigintToFixedBytes, concatBytes as cat, hexToBytes } from '../../primitives/bytes.ts';
import {
  buildPrecompiles,
  initPrecompiles,
  loadBackends,
  NATIVE_LOADERS,
  NO_NATIVE_LOADERS,
  type NativeLoaders,
  type PrecompileBackends,
  precompileLibraries,
  precompilesFor,
} from './index.ts';
import { BLAKE2B_IV, BLAKE2B_SIGMA } from './blake2f.ts';

const word = (n: bigint | number) => bigintToFixedBytes(BigInt(n), 32);

// A KZG opening made with c-kzg's mainnet setup: blob with field elements 0 = 5 and 1 = 9, z = 3.
const KZG = {
  commitment: '8e6372a43e8bc4615d057683a729bfc5797c901473001af8472c740e683a20dea14f0e6dadc076ff9f094b85ca0ac94d',
  z: '0000000000000000000000000000000000000000000000000000000000000003',
  y: '0c4c0388e078c7dd37a5fef50727819323b4bdb37af1953ff791a439cf2bb5fb',
  proof: '8cacf7ab9d742c44f8bc860fe7f2a10572fa381dd3898e240c90dca169fa655bec3aa6463f6b851e01dbf49826701d1b',
};
function kzgInput(over: Partial<typeof KZG> = {}, version = 1): Uint8Array {
  const k = { ...KZG, ...over };
  const commitment = hexToBytes(k.commitment);
  const hash = createHash('sha256').update(commitment).digest();
  hash[0] = version;
  return cat(hash, hexToBytes(k.z), hexToBytes(k.y), commitment, hexToBytes(k.proof));
}

function g1Bytes(p: InstanceType<typeof bn254.G1.Point>): Uint8Array {
  if (p.is0()) return new Uint8Array(64);
  const a = p.toAffine();
  return cat(word(a.x), word(a.y));
}
function g2Bytes(q: InstanceType<typeof bn254.G2.Point>): Uint8Array {
  const a = q.toAffine();
  return cat(word(a.x.c1), word(a.x.c0), word(a.y.c1), word(a.y.c0));
}

const SETS: [string, NativeLoaders][] = [
  ['native/wasm', NATIVE_LOADERS],
  ['forced pure-JS fallback', NO_NATIVE_LOADERS],
];

for (const [label, loaders] of SETS) {
  describe(`precompiles over the ${label} backends`, () => {
    let backends: PrecompileBackends;
    let maps: Record<Fork, ReadonlyMap<Address, PurePrecompile>>;
    let pc: (address: bigint) => PurePrecompile;
    before(async () => {
      backends = await loadBackends(loaders);
      maps = buildPrecompiles(backends);
      pc = (a) => maps.Prague.get(a)!;
    });

    test('the backends are the expected libraries', (t) => {
      t.diagnostic(JSON.stringify(backends.names));
      if (loaders === NO_NATIVE_LOADERS) {
        assert.deepEqual(backends.names, {
          ecrecover: '@noble/curves',
          keccak256: 'hash-wasm',
          ripemd160: '@noble/hashes',
          bn254: '@noble/curves',
          bls12381: '@noble/curves',
          p256verify: '@noble/curves',
          kzg: 'not loaded yet (first 0x0a call)',
        });
      } else {
        // wasm and OpenSSL load everywhere; the native add-ons (secp256k1, c-kzg) may fall back on a platform
        // without a prebuild or compiler, which the diagnostic above shows.
        assert.equal(backends.names.keccak256, 'hash-wasm');
        assert.equal(backends.names.ripemd160, 'node:crypto');
        assert.equal(backends.names.bn254, 'mcl-wasm');
        assert.equal(backends.names.bls12381, 'mcl-wasm');
      }
    });

    test('fork maps: Cancun 0x01–0x0a, Prague 0x01–0x11, Osaka 0x01–0x11 and 0x100', () => {
      assert.deepEqual(
        [...maps.Cancun.keys()],
        Array.from({ length: 10 }, (_, i) => BigInt(i + 1)),
      );
      assert.deepEqual(
        [...maps.Prague.keys()],
        Array.from({ length: 17 }, (_, i) => BigInt(i + 1)),
      );
      assert.deepEqual([...maps.Osaka.keys()], [...maps.Prague.keys(), 0x100n]);
    });

    test('0x01 ecrecover', () => {
      const ec = pc(0x01n);
      // geth's ecrecover vector: the signer is a94f5374fce5edbc8e2a8697c15331677e6ebf0b.
      const input = hexToBytes(
        '18c547e4f7b0f325ad1e56f57e26c745b09a3e503d86e00e5255ff7f715d3d1c000000000000000000000000000000000000000000000000000000000000001c73b1693892219d736caba55bdb67216e485557ea6b6af75f37096c9aa6a5a75feeb940b1d03b21e36b0e47e79769f095fe2ab855bd91e3a38756b7d75a9c4549',
      );
      assert.equal(
        bareHex(ec.run(input, 'Prague')!),
        '000000000000000000000000a94f5374fce5edbc8e2a8697c15331677e6ebf0b',
      );
      assert.equal(ec.gas(input, 'Prague'), 3000n);
      // A fresh key signed with noble: the address matches.
      const priv = hexToBytes('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
      const msg = keccak_256(new TextEncoder().encode('kestrel'));
      const sig = secp256k1.sign(msg, priv, { prehash: false, format: 'recovered' });
      const addr = keccak_256(secp256k1.getPublicKey(priv, false).subarray(1)).subarray(12);
      const good = cat(msg, word(27 + sig[0]!), sig.subarray(1, 33), sig.subarray(33, 65));
      assert.equal(bareHex(ec.run(good, 'Cancun')!.subarray(12)), bareHex(addr));
      // Invalid inputs give an empty output, not a failure: v not 27/28 (also with junk above the low byte),
      // r = 0, s ≥ n, short input (zero-padded, so v = 0).
      const bad = [
        cat(msg, word(29), sig.subarray(1, 65)),
        cat(msg, word((1n << 8n) + 27n), sig.subarray(1, 65)),
        cat(msg, word(27 + sig[0]!), word(0), sig.subarray(33, 65)),
        cat(
          msg,
          word(27 + sig[0]!),
          sig.subarray(1, 33),
          hexToBytes('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'),
        ),
        msg,
      ];
      for (const b of bad) assert.equal(ec.run(b, 'Prague')!.length, 0);
    });

    test('0x02 sha256, 0x03 ripemd160, 0x04 identity', () => {
      const empty = new Uint8Array(0);
      assert.equal(
        bareHex(pc(0x02n).run(empty, 'Prague')!),
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      );
      assert.equal(
        bareHex(pc(0x03n).run(empty, 'Prague')!),
        '0000000000000000000000009c1185a5c5e9fc54612808977ee8f548b2258d31',
      );
      assert.equal(
        bareHex(pc(0x03n).run(new TextEncoder().encode('abc'), 'Prague')!),
        '0000000000000000000000008eb208f7e05d987a9b044a8e98c6b087f15a0bfc',
      );
      const data = new Uint8Array(33).fill(7);
      assert.deepEqual(pc(0x04n).run(data, 'Prague'), data);
      assert.deepEqual(
        [0x02n, 0x03n, 0x04n].map((a) => pc(a).gas(empty, 'Prague')),
        [60n, 600n, 15n],
      );
      assert.deepEqual(
        [0x02n, 0x03n, 0x04n].map((a) => pc(a).gas(data, 'Prague')),
        [84n, 840n, 21n],
      );
    });

    test('0x05 modexp: Fermat 3^(p-2)·3 mod p = 1 (EIP-198 example) at 1360 gas', () => {
      const p = hexToBytes('fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f');
      const e = hexToBytes('fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2e');
      const input = cat(word(1), word(32), word(32), new Uint8Array([3]), e, p);
      assert.equal(bareHex(pc(0x05n).run(input, 'Prague')!), bareHex(word(1)));
      assert.equal(pc(0x05n).gas(input, 'Cancun'), 1360n);
    });

    test('0x06–0x08 bn254', () => {
      const G = bn254.G1.Point.BASE;
      const Q = bn254.G2.Point.BASE;
      const add = pc(0x06n);
      const mul = pc(0x07n);
      const pairing = pc(0x08n);
      assert.equal(
        bareHex(add.run(cat(g1Bytes(G), g1Bytes(G)), 'Prague')!),
        '030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd315ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4',
      );
      // Empty input: O + O = O; short input is zero-padded.
      assert.deepEqual(add.run(new Uint8Array(0), 'Prague'), new Uint8Array(64));
      assert.deepEqual(add.run(g1Bytes(G), 'Prague'), g1Bytes(G));
      const k = 0xdeadbeefcafen;
      assert.deepEqual(mul.run(cat(g1Bytes(G), word(k)), 'Prague'), g1Bytes(G.multiply(k)));
      // A scalar above r is reduced; (1, 3) is off the curve; x = p is not a field element.
      const r = bn254.G1.Point.Fn.ORDER;
      assert.deepEqual(mul.run(cat(g1Bytes(G), word(r + 5n)), 'Prague'), g1Bytes(G.multiply(5n)));
      assert.equal(add.run(cat(word(1), word(3)), 'Prague'), undefined);
      const p = bn254.G1.Point.Fp.ORDER;
      assert.equal(mul.run(cat(word(p), word(2), word(1)), 'Prague'), undefined);
      // e(aG, Q)·e(-G, aQ) = 1; a wrong pair gives 0; empty input gives 1.
      const a = 0x1234567n;
      const pairs = cat(g1Bytes(G.multiply(a)), g2Bytes(Q), g1Bytes(G.negate()), g2Bytes(Q.multiply(a)));
      assert.equal(bareHex(pairing.run(pairs, 'Prague')!), bareHex(word(1)));
      const wrong = cat(g1Bytes(G.multiply(a + 1n)), g2Bytes(Q), g1Bytes(G.negate()), g2Bytes(Q.multiply(a)));
      assert.equal(bareHex(pairing.run(wrong, 'Prague')!), bareHex(word(0)));
      assert.equal(bareHex(pairing.run(new Uint8Array(0), 'Prague')!), bareHex(word(1)));
      assert.equal(pairing.run(pairs.subarray(1), 'Prague'), undefined);
      assert.deepEqual(
        [add.gas(pairs, 'Prague'), mul.gas(pairs, 'Prague'), pairing.gas(pairs, 'Prague')],
        [150n, 6000n, 113000n],
      );
      // A point on the twist but outside the r-torsion subgroup is rejected (the twist's cofactor is large, so
      // the first x = 1, 2, … with y² = x³ + b' on the curve gives one).
      const { Fp2 } = bn254.fields;
      const b2 = Fp2.div(Fp2.create({ c0: 3n, c1: 0n }), Fp2.create({ c0: 9n, c1: 1n }));
      for (let x = 1n; ; x++) {
        const X = Fp2.create({ c0: x, c1: 0n });
        const rhs = Fp2.add(Fp2.mul(Fp2.sqr(X), X), b2);
        let Y;
        try {
          Y = Fp2.sqrt(rhs);
        } catch {
          continue;
        }
        const enc = cat(word(X.c1), word(X.c0), word(Y.c1), word(Y.c0));
        assert.equal(pairing.run(cat(g1Bytes(G), enc), 'Prague'), undefined);
        break;
      }
    });

    test('0x09 blake2f: EIP-152 vectors and BLAKE2b-512("abc") as the 12-round oracle', () => {
      const le = (v: bigint) => bigintToFixedBytes(v, 8).reverse();
      const input = (rounds: number, f: number) => {
        const h = BLAKE2B_IV.map((v, i) => (i === 0 ? v ^ 0x01010040n : v));
        const m = new Uint8Array(128);
        m.set(new TextEncoder().encode('abc'));
        return cat(bigintToFixedBytes(BigInt(rounds), 4), ...h.map(le), m, le(3n), le(0n), new Uint8Array([f]));
      };
      const f = pc(0x09n);
      assert.equal(bareHex(f.run(input(12, 1), 'Prague')!), createHash('blake2b512').update('abc').digest('hex'));
      assert.equal(
        bareHex(f.run(input(0, 1), 'Prague')!),
        '08c9bcf367e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d282e6ad7f520e511f6c3e2b8c68059b9442be0454267ce079217e1319cde05b',
      );
      assert.equal(
        bareHex(f.run(input(12, 0), 'Prague')!),
        '75ab69d3190a562c51aef8d88f1c2775876944407270c42c9844252c26d2875298743e7f6d5ea2f2d3e8d226039cd31b4e426ac4f2d3d666a610c2116fde4735',
      );
      assert.equal(
        bareHex(f.run(input(1, 1), 'Prague')!),
        'b63a380cb2897d521994a85234ee2c181b5f844d2c624c002677e9703449d2fba551b3a8333bcdf5f2f7e08993d53923de3d64fcc68c034e717b9293fed7a421',
      );
      assert.equal(f.gas(input(12, 1), 'Prague'), 12n);
      assert.equal(f.run(input(12, 2), 'Prague'), undefined);
      assert.equal(f.run(input(12, 1).subarray(1), 'Prague'), undefined);
      assert.equal(f.run(cat(input(12, 1), new Uint8Array(1)), 'Prague'), undefined);
      assert.equal(f.run(cat(bigintToFixedBytes(12n, 4), new Uint8Array(209)), 'Prague')!.length, 64);
    });

    test('0x09 blake2f: round counts across the module’s call boundaries agree with a BigInt F', () => {
      // RFC 7693 §3.2 written plainly over BigInt: slow, obviously right, and independent of the WebAssembly module.
      const M64 = (1n << 64n) - 1n;
      const rotr = (x: bigint, n: bigint) => ((x >> n) | (x << (64n - n))) & M64;
      const words = (b: Uint8Array) => Array.from({ length: b.length / 8 }, (_, i) => readLe(b.subarray(8 * i)));
      const readLe = (b: Uint8Array) => b.subarray(0, 8).reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
      const reference = (input: Uint8Array): string => {
        const rounds = Number(readLe(input.subarray(0, 4).slice().reverse()));
        const h = words(input.subarray(4, 68));
        const m = words(input.subarray(68, 196));
        const [t0, t1] = words(input.subarray(196, 212));
        const v = [...h, ...BLAKE2B_IV];
        v[12]! ^= t0!;
        v[13]! ^= t1!;
        if (input[212] === 1) v[14]! ^= M64;
        const g = (a: number, b: number, c: number, d: number, x: bigint, y: bigint) => {
          v[a] = (v[a]! + v[b]! + x) & M64;
          v[d] = rotr(v[d]! ^ v[a]!, 32n);
          v[c] = (v[c]! + v[d]!) & M64;
          v[b] = rotr(v[b]! ^ v[c]!, 24n);
          v[a] = (v[a]! + v[b]! + y) & M64;
          v[d] = rotr(v[d]! ^ v[a]!, 16n);
          v[c] = (v[c]! + v[d]!) & M64;
          v[b] = rotr(v[b]! ^ v[c]!, 63n);
        };
        for (let r = 0; r < rounds; r++) {
          const s = BLAKE2B_SIGMA[r % 10]!.map((i) => m[i]!);
          g(0, 4, 8, 12, s[0]!, s[1]!);
          g(1, 5, 9, 13, s[2]!, s[3]!);
          g(2, 6, 10, 14, s[4]!, s[5]!);
          g(3, 7, 11, 15, s[6]!, s[7]!);
          g(0, 5, 10, 15, s[8]!, s[9]!);
          g(1, 6, 11, 12, s[10]!, s[11]!);
          g(2, 7, 8, 13, s[12]!, s[13]!);
          g(3, 4, 9, 14, s[14]!, s[15]!);
        }
        return bareHex(cat(...h.map((x, i) => bigintToFixedBytes(x ^ v[i]! ^ v[i + 8]!, 8).reverse())));
      };
      const f = pc(0x09n);
      let seed = 11;
      // 40,960 rounds is one call of the module's run; the last count spans two calls and ends off the schedule's row 0.
      for (const rounds of [0, 1, 9, 10, 11, 12, 40_959, 40_963]) {
        const body = Uint8Array.from({ length: 208 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
        const input = cat(bigintToFixedBytes(BigInt(rounds), 4), body, new Uint8Array([rounds & 1]));
        assert.equal(bareHex(f.run(input, 'Prague')!), reference(input), `${rounds} rounds`);
      }
    });

    test('0x09 blake2f: whole BLAKE2b-512 hashes of 0-700 bytes built from F agree with OpenSSL', () => {
      // Every block boundary, counter t and final flag the precompile sees when a contract hashes with it.
      const f = pc(0x09n);
      const le = (v: bigint) => bigintToFixedBytes(v, 8).reverse();
      let seed = 7;
      for (let len = 0; len <= 700; len += len < 260 ? 1 : 37) {
        const msg = Uint8Array.from({ length: len }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
        let h: Uint8Array = cat(...BLAKE2B_IV.map((x, i) => le(i === 0 ? x ^ 0x01010040n : x)));
        const blocks = Math.max(1, Math.ceil(len / 128));
        for (let b = 0; b < blocks; b++) {
          const last = b === blocks - 1;
          const block = new Uint8Array(128);
          block.set(msg.subarray(b * 128, b * 128 + 128));
          const t = last ? BigInt(len) : BigInt((b + 1) * 128);
          h = f.run(
            cat(bigintToFixedBytes(12n, 4), h, block, le(t), le(0n), new Uint8Array([last ? 1 : 0])),
            'Prague',
          )!;
        }
        assert.equal(bareHex(h), createHash('blake2b512').update(msg).digest('hex'), `length ${len}`);
      }
    });

    test('0x0a KZG point evaluation', (t) => {
      const kzg = pc(0x0an);
      const out = kzg.run(kzgInput(), 'Cancun')!;
      t.diagnostic(`KZG verifier: ${backends.names.kzg}`);
      if (loaders === NO_NATIVE_LOADERS) assert.equal(backends.names.kzg, 'micro-eth-signer');
      assert.equal(
        bareHex(out),
        bareHex(cat(word(4096), word(0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n))),
      );
      assert.equal(kzg.gas(kzgInput(), 'Cancun'), 50000n);
      // Wrong y, wrong version byte, wrong length, z ≥ r, a proof that is not a point.
      const y2 = KZG.y.slice(0, -1) + 'c';
      assert.equal(kzg.run(kzgInput({ y: y2 }), 'Cancun'), undefined);
      assert.equal(kzg.run(kzgInput({}, 2), 'Cancun'), undefined);
      assert.equal(kzg.run(kzgInput().subarray(1), 'Cancun'), undefined);
      assert.equal(
        kzg.run(kzgInput({ z: '73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000004' }), 'Cancun'),
        undefined,
      );
      assert.equal(kzg.run(kzgInput({ proof: 'ff'.repeat(48) }), 'Cancun'), undefined);
    });

    test('0x0b–0x11 BLS12-381 gas', () => {
      const g = (a: bigint, len: number) => pc(a).gas(new Uint8Array(len), 'Prague');
      assert.deepEqual([g(0x0bn, 256), g(0x0dn, 512), g(0x10n, 64), g(0x11n, 128)], [375n, 600n, 5500n, 23800n]);
      assert.deepEqual([g(0x0fn, 384), g(0x0fn, 768)], [70300n, 102900n]);
      // MSM: k·base·discount(k)/1000, capped discount past 128 items.
      assert.deepEqual(
        [g(0x0cn, 160), g(0x0cn, 320), g(0x0cn, 160 * 128), g(0x0cn, 160 * 200)],
        [12000n, 22776n, 797184n, 1245600n],
      );
      assert.deepEqual([g(0x0en, 288), g(0x0en, 576), g(0x0en, 288 * 200)], [22500n, 45000n, 2358000n]);
    });
  });
}

test('initPrecompiles is idempotent and precompilesFor serves every fork', async () => {
  await Promise.all([initPrecompiles(), initPrecompiles()]);
  assert.equal(precompilesFor('Cancun').size, 10);
  assert.equal(precompilesFor('Prague').size, 17);
  assert.equal(precompilesFor('Osaka').size, 18);
  assert.equal(precompilesFor('Cancun').get(0x0bn), undefined);
  assert.equal(precompileLibraries().bls12381, 'mcl-wasm');
});
