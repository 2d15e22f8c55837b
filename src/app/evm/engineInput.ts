// What Kestrel's engine is handed: an ethereumjs transaction (as decoded at admission) as the engine's Tx, and a
// block context as its BlockEnv. The engine reads plain bigints and bytes; nothing here validates (the engine does).
import type { TypedTransaction } from '@ethereumjs/tx';
import type { BlockEnv, Tx } from '../../evm/index.ts';
import type { BlockContext } from '../block.ts';
import { blobBaseFee } from './forkConfig.ts';

/** Big-endian bytes as a bigint (0n for none). */
export function bytesToBigint(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex'));
}

/** The fields of the 1559-style, 2930-style and 7702 transaction types, read without their classes. */
interface TxFields {
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accessList?: Array<[Uint8Array, Uint8Array[]]>;
  authorizationList?: Array<[Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array]>;
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
}

/** A decoded transaction and its recovered sender as the engine's Tx. */
export function engineTxOf(tx: TypedTransaction, sender: Uint8Array): Tx {
  const f = tx as unknown as TxFields;
  return {
    type: tx.type as Tx['type'],
    from: bytesToBigint(sender),
    to: tx.to === undefined ? undefined : bytesToBigint(tx.to.bytes),
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    value: tx.value,
    data: tx.data,
    gasPrice: f.gasPrice ?? 0n,
    maxFeePerGas: f.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: f.maxPriorityFeePerGas ?? 0n,
    accessList: (f.accessList ?? []).map(([address, keys]) => ({
      address: bytesToBigint(address),
      storageKeys: keys.map(bytesToBigint),
    })),
    maxFeePerBlobGas: f.maxFeePerBlobGas ?? 0n,
    blobVersionedHashes: f.blobVersionedHashes ?? [],
    authorizationList: (f.authorizationList ?? []).map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: bytesToBigint(chainId),
      address: bytesToBigint(address),
      nonce: bytesToBigint(nonce),
      yParity: bytesToBigint(yParity),
      r: bytesToBigint(r),
      s: bytesToBigint(s),
    })),
  };
}

/**
 * A block context as the engine's BlockEnv. Kestrel's headers carry no blob gas (excess 0), so the blob base fee
 * is the minimum, as ethereumjs' header reports it.
 */
export function blockEnvOf(ctx: BlockContext, chainId: bigint): BlockEnv {
  return {
    number: ctx.number,
    timestamp: ctx.timestamp,
    coinbase: bytesToBigint(ctx.coinbase),
    gasLimit: ctx.gasLimit,
    baseFee: ctx.baseFeePerGas,
    prevRandao: bytesToBigint(ctx.mixHash),
    blobBaseFee: blobBaseFee(0n),
    chainId,
  };
}
