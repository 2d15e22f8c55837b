// The engine's two inputs besides state, as its unit tests and benches build them: one default of each field, so
// a test names only what it is about.
import type { BlockEnv, Tx } from '../types.ts';

/**
 * A transaction from `over.from` to `over.to` (undefined: a create): type 2, nonce 0, 1M gas, no value or data, a
 * fee cap of 10 and a tip of 1 wei, no access, blob or authorization lists; `over` replaces any field.
 */
export function testTx(over: Partial<Tx> & Pick<Tx, 'from' | 'to'>): Tx {
  return {
    type: 2,
    nonce: 0n,
    gasLimit: 1_000_000n,
    value: 0n,
    data: new Uint8Array(0),
    gasPrice: 0n,
    maxFeePerGas: 10n,
    maxPriorityFeePerGas: 1n,
    accessList: [],
    maxFeePerBlobGas: 0n,
    blobVersionedHashes: [],
    authorizationList: [],
    ...over,
  };
}

/** A block: number 1 at time 1, coinbase 0xc0, 1e9 gas, base fee 7, blob base fee 1, chain id 1; `over` replaces any field. */
export function testBlock(over: Partial<BlockEnv> = {}): BlockEnv {
  return {
    number: 1n,
    timestamp: 1n,
    coinbase: 0xc0n,
    gasLimit: 1_000_000_000n,
    baseFee: 7n,
    prevRandao: 0n,
    blobBaseFee: 1n,
    chainId: 1n,
    ...over,
  };
}
