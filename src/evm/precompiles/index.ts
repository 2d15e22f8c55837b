// The precompiled contracts of Cancun (0x01–0x0a), Prague (adds 0x0b–0x11, EIP-2537) and Osaka (adds 0x100,
// EIP-7951; reprices 0x05, EIP-7883).
//
// Libraries (each chosen for speed; bench/precompiles.ts times them), with a pure-JS fallback used when one cannot
// load:
// - 0x01 ecrecover: native libsecp256k1 (`secp256k1`), else @noble/curves.
// - 0x02/0x03: node:crypto (RIPEMD-160 falls back to @noble/hashes); 0x05 modexp and 0x09 blake2f: own code.
// - 0x06–0x08 bn254 and 0x0b–0x11 BLS12-381: mcl-wasm, one instance per curve; else @noble/curves.
// - 0x0a KZG: c-kzg, else micro-eth-signer; loaded on the first 0x0a call (c-kzg's setup takes 3–5 s) or by
//   initPrecompiles({ kzg: true }).
// - 0x100 P256VERIFY: @noble/curves only (no native library verifies a raw P-256 digest), so it is the slowest
//   precompile per call.
// Startup: initPrecompiles() instantiates the two mcl wasm instances, hash-wasm and the secp256k1 add-on
// (a noticeable part of a second of CPU, ~400 ms of it mcl's). Nothing needs it before the first EVM execution, so
// a node can start it at once, answer its first requests, and await it before executing anything. A block's system
// call (EIP-2935's contract, which calls no precompile) needs only the maps: initPrecompileMaps() builds them
// without waiting for mcl, whose precompiles (0x06–0x08, 0x0b–0x11) throw until initPrecompiles() has completed,
// so a fresh chain seals its empty first block before the wasm is compiled.
import { initKeccak, keccak256 as groundKeccak } from '../../primitives/keccak.ts';
import type { Address, Fork, PurePrecompile } from '../types.ts';
import { blake2fPrecompile } from './blake2f.ts';
import { type Bls12381Backend, bls12381Precompiles } from './bls12381.ts';
import { loadMclBls12381 } from './bls12381-mcl.ts';
import { type Bn254Backend, bn254AddPrecompile, bn254MulPrecompile, bn254PairingPrecompile } from './bn254.ts';
import { loadMclBn254 } from './bn254-mcl.ts';
import { ecrecoverPrecompile, loadNativeRecover, type RecoverFn } from './ecrecover.ts';
import {
  type HashFn,
  identityPrecompile,
  jsRipemd160,
  loadOpensslRipemd160,
  ripemd160Precompile,
  sha256Precompile,
} from './hashes.ts';
import { type KzgVerifier, kzgPointEvaluationPrecompile, loadCKzg, loadMicroKzg } from './kzg.ts';
import { modexpPrecompile } from './modexp.ts';
import { p256VerifyPrecompile, type P256VerifyFn } from './p256verify.ts';

/** The libraries behind the precompiles. */
export interface PrecompileBackends {
  recover: RecoverFn;
  keccak256: HashFn;
  ripemd160: HashFn;
  bn254: Bn254Backend;
  bls12381: Bls12381Backend;
  p256: P256VerifyFn;
  /** Called on the first 0x0a call. */
  kzg: () => KzgVerifier;
  /** Which library serves each role, e.g. { ecrecover: 'secp256k1 (native)', kzg: 'c-kzg' }. */
  names: Record<string, string>;
}

/** Loaders of the native and wasm libraries: each throws or returns undefined when its library cannot load. */
export interface NativeLoaders {
  recover(): RecoverFn | undefined;
  ripemd160(): HashFn | undefined;
  bn254(): Promise<Bn254Backend>;
  bls12381(): Promise<Bls12381Backend>;
  /** Synchronous: it runs on the first 0x0a call. */
  kzg(): KzgVerifier | undefined;
}

/** The real loaders. */
export const NATIVE_LOADERS: NativeLoaders = {
  recover: loadNativeRecover,
  ripemd160: loadOpensslRipemd160,
  bn254: loadMclBn254,
  bls12381: loadMclBls12381,
  kzg: loadCKzg,
};

/** Loaders that load nothing: every role takes its pure-JS fallback (tests force the fallbacks with it). */
export const NO_NATIVE_LOADERS: NativeLoaders = {
  recover: () => undefined,
  ripemd160: () => undefined,
  bn254: () => Promise.reject(new Error('native libraries disabled')),
  bls12381: () => Promise.reject(new Error('native libraries disabled')),
  kzg: () => undefined,
};

// The pure-JS backends are imported only when used: @noble/curves' secp256k1, bn254 and BLS12-381 modules
// add ~100 ms to the import of this module, which the native path does not need.
const nobleRecover = async () => (await import('./ecrecover-noble.ts')).nobleRecover;
const nobleBn254 = async () => (await import('./bn254-noble.ts')).nobleBn254;
const nobleBls12381 = async () => (await import('./bls12381-noble.ts')).nobleBls12381;
const nobleP256 = async () => (await import('./p256-noble.ts')).nobleP256Verify;

/** Loads the backends; each library that fails to load is replaced by its pure-JS fallback. */
export async function loadBackends(loaders: NativeLoaders = NATIVE_LOADERS): Promise<PrecompileBackends> {
  const names: Record<string, string> = {};
  const [core, curves] = await Promise.all([loadCoreBackends(loaders, names), loadCurveBackends(loaders, names)]);
  return { ...core, ...curves };
}

/** The backends but the two pairing curves'. */
type CoreBackends = Omit<PrecompileBackends, 'bn254' | 'bls12381'>;
/** The pairing curves' backends (mcl's wasm: the slow part of loading). */
type CurveBackends = Pick<PrecompileBackends, 'bn254' | 'bls12381'>;

/** Loads `native`, else `fallback`, recording which one serves `role` in `names`. */
async function settle<T>(
  names: Record<string, string>,
  role: string,
  native: () => Promise<T | undefined>,
  nativeName: string,
  fallback: () => Promise<T>,
  fallbackName: string,
): Promise<T> {
  const value = await native().catch(() => undefined);
  names[role] = value === undefined ? fallbackName : nativeName;
  return value ?? fallback();
}

/** Loads every backend but the pairing curves' (tens of ms); records the libraries in `names`. */
async function loadCoreBackends(loaders: NativeLoaders, names: Record<string, string>): Promise<CoreBackends> {
  const [recover, keccak256, ripemd160, p256] = await Promise.all([
    settle(names, 'ecrecover', async () => loaders.recover(), 'secp256k1 (native)', nobleRecover, '@noble/curves'),
    // keccak is the ground floor's (primitives/keccak.ts), the one every layer hashes with: no second fallback here.
    initKeccak().then(() => {
      names.keccak256 = 'hash-wasm';
      return groundKeccak;
    }),
    settle(
      names,
      'ripemd160',
      async () => loaders.ripemd160(),
      'node:crypto',
      async () => jsRipemd160,
      '@noble/hashes',
    ),
    nobleP256().then((verify) => {
      names.p256verify = '@noble/curves';
      return verify;
    }),
  ]);
  const kzg = () => {
    const verifier = loaders.kzg() ?? loadMicroKzg();
    names.kzg = verifier.name;
    return verifier;
  };
  names.kzg = 'not loaded yet (first 0x0a call)';
  return { recover, keccak256, ripemd160, p256, kzg, names };
}

/** Loads the pairing curves' backends (two mcl wasm instances, ~400 ms of CPU); records them in `names`. */
async function loadCurveBackends(loaders: NativeLoaders, names: Record<string, string>): Promise<CurveBackends> {
  const [bn254, bls12381] = await Promise.all([
    settle(names, 'bn254', () => loaders.bn254(), 'mcl-wasm', nobleBn254, '@noble/curves'),
    settle(names, 'bls12381', () => loaders.bls12381(), 'mcl-wasm', nobleBls12381, '@noble/curves'),
  ]);
  return { bn254, bls12381 };
}

/** The precompile maps of every fork over one set of backends. */
export function buildPrecompiles(b: PrecompileBackends): Record<Fork, ReadonlyMap<Address, PurePrecompile>> {
  const cancun: [Address, PurePrecompile][] = [
    [0x01n, ecrecoverPrecompile(b.recover, b.keccak256)],
    [0x02n, sha256Precompile],
    [0x03n, ripemd160Precompile(b.ripemd160)],
    [0x04n, identityPrecompile],
    [0x05n, modexpPrecompile],
    [0x06n, bn254AddPrecompile(b.bn254)],
    [0x07n, bn254MulPrecompile(b.bn254)],
    [0x08n, bn254PairingPrecompile(b.bn254)],
    [0x09n, blake2fPrecompile],
    [0x0an, kzgPointEvaluationPrecompile(b.kzg)],
  ];
  const prague: [Address, PurePrecompile][] = [...cancun, ...bls12381Precompiles(b.bls12381)];
  return {
    Cancun: new Map(cancun),
    Prague: new Map(prague),
    Osaka: new Map([...prague, [0x100n, p256VerifyPrecompile(b.p256)]]),
  };
}

/** Options of {@link initPrecompiles}. */
export interface InitOptions {
  /** Load the KZG library and trusted setup now (3–5 s with c-kzg) instead of on the first 0x0a call. */
  kzg?: boolean;
}

/** Thrown by a pairing-curve precompile run before its library loaded: a caller skipped initPrecompiles(). */
function curvesNotLoaded(): never {
  throw new Error('bn254/BLS12-381 precompile used before initPrecompiles() completed');
}

/** Backends whose calls go to the pairing curves' libraries once `curves.value` is set (by initPrecompiles). */
function deferredCurves(curves: { value?: CurveBackends }): CurveBackends {
  const bn = () => curves.value?.bn254 ?? curvesNotLoaded();
  const bls = () => curves.value?.bls12381 ?? curvesNotLoaded();
  return {
    bn254: {
      get name() {
        return curves.value?.bn254.name ?? 'not loaded yet';
      },
      add: (a, b) => bn().add(a, b),
      mul: (point, scalar) => bn().mul(point, scalar),
      pairingCheck: (pairs) => bn().pairingCheck(pairs),
    },
    bls12381: {
      get name() {
        return curves.value?.bls12381.name ?? 'not loaded yet';
      },
      g1Add: (a, b) => bls().g1Add(a, b),
      g2Add: (a, b) => bls().g2Add(a, b),
      g1Msm: (input, k) => bls().g1Msm(input, k),
      g2Msm: (input, k) => bls().g2Msm(input, k),
      pairingCheck: (input, k) => bls().pairingCheck(input, k),
      mapFpToG1: (fp) => bls().mapFpToG1(fp),
      mapFp2ToG2: (fp2) => bls().mapFp2ToG2(fp2),
    },
  };
}

// The process-wide default set: the libraries are process-wide themselves (wasm instances, c-kzg's setup).
interface Defaults {
  maps: Record<Fork, ReadonlyMap<Address, PurePrecompile>>;
  loadKzg: () => KzgVerifier;
  names: Record<string, string>;
  /** The pairing curves' backends, once loaded (the maps' 0x06–0x08 and 0x0b–0x11 call through it). */
  curves: { value?: CurveBackends };
}
let mapsLoading: Promise<Defaults> | undefined;
let curvesLoading: Promise<void> | undefined;
let ready: Defaults | undefined;
let complete = false;

/**
 * Builds the default precompile maps without loading the pairing curves' libraries (mcl), idempotent: enough for
 * code that calls no precompile at 0x06–0x08 or 0x0b–0x11, such as a block's system call. Those throw until
 * {@link initPrecompiles} has completed.
 */
export async function initPrecompileMaps(): Promise<void> {
  mapsLoading ??= loadCoreBackends(NATIVE_LOADERS, {}).then((core) => {
    const loadKzg = once(core.kzg);
    const curves: { value?: CurveBackends } = {};
    const maps = buildPrecompiles({ ...core, ...deferredCurves(curves), kzg: loadKzg });
    return { maps, loadKzg, names: core.names, curves };
  });
  ready = await mapsLoading;
}

/** One-time async setup of the default precompiles (wasm libraries; KZG when asked); idempotent. */
export async function initPrecompiles(options: InitOptions = {}): Promise<void> {
  await initPrecompileMaps();
  const defaults = ready!;
  curvesLoading ??= loadCurveBackends(NATIVE_LOADERS, defaults.names).then((curves) => {
    defaults.curves.value = curves;
    complete = true;
  });
  await curvesLoading;
  if (options.kzg) defaults.loadKzg();
}

/** Whether {@link initPrecompiles} has completed: every precompile of the default set can run. */
export function precompilesComplete(): boolean {
  return complete;
}

/**
 * The active precompiles of a fork; {@link initPrecompileMaps} must have completed, and {@link initPrecompiles}
 * before any call can reach a pairing-curve precompile.
 */
export function precompilesFor(fork: Fork): ReadonlyMap<Address, PurePrecompile> {
  if (ready === undefined) throw new Error('precompiles used before initPrecompiles() completed');
  return ready.maps[fork];
}

/** Which library serves each role in the default set (for the startup log: a fallback shows here). */
export function precompileLibraries(): Readonly<Record<string, string>> {
  if (!complete) throw new Error('precompiles used before initPrecompiles() completed');
  return { ...ready!.names };
}

function once<T>(load: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= load());
}
