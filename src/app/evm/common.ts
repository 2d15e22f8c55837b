// The chain's Ethereum rules: the fork its genesis names, EIP-155 id, and native secp256k1 recovery (25× faster
// than pure JS).
import { createCustomCommon, Hardfork, Mainnet, type Common } from '@ethereumjs/common';
import { secp256k1 } from '../../primitives/secp256k1.ts';
import type { Fork } from '../../evm/index.ts';
import { initKeccak, keccak256 } from '../../primitives/keccak.ts';
import { padLeft } from '../../primitives/hex.ts';

/** The fork a new chain runs (`kestreld init`); solc's default evmVersion since 0.8.31 is osaka too. */
export const DEFAULT_FORK: Fork = 'Osaka';

/**
 * The ethereumjs hardfork whose transaction and header formats a fork uses. Osaka changes neither, and an
 * ethereumjs Osaka Common would refuse a transaction above EIP-7825's gas cap in its constructor, before (and
 * worded unlike) geth's refusal, which Kestrel's admission and engine make; so an Osaka chain decodes as Prague.
 */
const FORMAT_HARDFORK: Record<Fork, Hardfork> = {
  Cancun: Hardfork.Cancun,
  Prague: Hardfork.Prague,
  Osaka: Hardfork.Prague,
};

/** The fork each Common made here runs (the Common's own hardfork names its formats only). */
const FORK_OF = new WeakMap<Common, Fork>();

/** The fork a chain's Common runs: the one it was made for, else its hardfork's (Cancun or Prague). */
export function chainFork(common: Common): Fork {
  const fork = FORK_OF.get(common);
  if (fork !== undefined) return fork;
  const hf = common.hardfork();
  if (hf === 'prague') return 'Prague';
  if (hf === 'cancun') return 'Cancun';
  throw new Error(`hardfork ${hf} is not run by Kestrel's engine`);
}

/** The recovery id (0 or 1 when valid) a signature's v stands for (legacy: EIP-155's with `chainId`, else 27/28). */
export function recoveryId(v: bigint, chainId?: bigint): number {
  if (v === 0n || v === 1n) return Number(v);
  if (chainId === undefined) return Number(v - 27n);
  return Number(v - (chainId * 2n + 35n));
}

/** Recovers the uncompressed public key (64 bytes, no prefix) with the native library. */
export function nativeEcrecover(
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  const rec = recoveryId(v, chainId);
  if (rec !== 0 && rec !== 1) throw new Error('invalid signature v value');
  const sig = new Uint8Array(64);
  sig.set(padLeft(r, 32), 0);
  sig.set(padLeft(s, 32), 32);
  const pub = secp256k1().ecdsaRecover(sig, rec, msgHash, false);
  return pub.slice(1);
}

/** A synchronous keccak-256. */
export type Keccak = (data: Uint8Array) => Uint8Array;

/**
 * A WebAssembly keccak-256, 4-8x faster than the pure-JS one on trie nodes (keccak was the top self-time item when
 * executing blocks). The hasher is synchronous once created, so one instance serves every caller.
 */
export async function createFastKeccak(): Promise<Keccak> {
  await initKeccak();
  return keccak256;
}

/** Builds the Common of an EIP-155 chain id running `fork` (with native ecrecover and a fast keccak). */
export function createChainCommon(evmChainId: bigint, keccak256?: Keccak, fork: Fork = DEFAULT_FORK): Common {
  const common = createCustomCommon({ chainId: Number(evmChainId), name: 'kestrel' }, Mainnet, {
    hardfork: FORMAT_HARDFORK[fork],
    customCrypto: keccak256 ? { ecrecover: nativeEcrecover, keccak256 } : { ecrecover: nativeEcrecover },
  });
  FORK_OF.set(common, fork);
  return common;
}

/**
 * A Common for immutable consumers (decoded txs, block headers). ethereumjs copies the Common into every tx and
 * header it builds, and a copy costs ~0.3 ms (it rebuilds the params cache), which dominated admission. Txs and
 * headers only read it (we never ask runTx to align hardforks), so here copy() hands out the same instance.
 */
export function createSharedCommon(evmChainId: bigint, keccak256?: Keccak, fork: Fork = DEFAULT_FORK): Common {
  const common = createChainCommon(evmChainId, keccak256, fork);
  common.copy = () => common;
  // Every tx constructor also re-applies the same constant params table (a deep copy plus a cache rebuild);
  // applying a given table once is enough.
  const applied = new WeakSet<object>();
  const updateParams = common.updateParams.bind(common);
  common.updateParams = (params) => {
    if (applied.has(params)) return;
    applied.add(params);
    updateParams(params);
  };
  return common;
}
