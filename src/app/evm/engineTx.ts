// How Kestrel's transactions, calls and blocks map onto Kestrel's own engine (src/evm/): which fork it runs, the
// chain's fee rule, the engine's Tx from a signed transaction or a call request, the BlockEnv from a block's
// context. Shared by block execution and the call paths so both run the same rules.
import type { Common } from '@ethereumjs/common';
import type { Transaction } from '../../primitives/tx/types.ts';
import { addressFromBytes, addressToBytes } from '../../primitives/bytes.ts';
import {
  type AccessListItem as EngineAccessItem,
  type BlockEnv,
  type ChainRules,
  type Fork,
  forkRules,
  HISTORY_STORAGE_ADDRESS,
  MIN_BLOB_BASE_FEE,
  systemCall,
  type Tx,
  type WorldState,
} from '../../evm/index.ts';
import type { AccessListItem, CallRequest } from '../../primitives/callRequest.ts';
import { bytesToBigint } from '../../primitives/hex.ts';
import type { BlockContext } from '../block.ts';
import { chainFork } from './common.ts';

/** Kestrel's fee rule: the whole fee (base fee included) goes to the block's coinbase; nothing is burned. */
export const KESTREL_RULES: ChainRules = Object.freeze({ burnBaseFee: false });

/** The engine fork of a chain's Common (the fork its genesis names; see common.ts). */
export function engineFork(common: Common): Fork {
  return chainFork(common);
}

/**
 * What a block does before its first transaction (geth's PreExecution): from Prague, EIP-2935's system call stores
 * the parent's hash in the history contract; a chain whose state has no such contract (one made before Kestrel
 * deployed it at genesis) finds empty code there, and the call changes nothing. (EIP-4788's beacon root call needs
 * a beacon chain's root: geth makes it only when one is given, and Kestrel has none.)
 */
export function preExecution(world: WorldState, env: BlockEnv, parentHash: Uint8Array, fork: Fork): void {
  if (forkRules(fork).historyStorage) systemCall(world, env, HISTORY_STORAGE_ADDRESS, parentHash, fork);
}

/** A 20-byte address as the engine's 160-bit integer (three lanes: no hex string on the per-call path). */
export function addressOf(bytes: Uint8Array): bigint {
  return bytes.length === 20 ? addressFromBytes(bytes) : bytesToBigint(bytes);
}

/** A 160-bit address as 20 bytes (the engine's conversion: no hex string on the per-call path). */
export const addressBytes: (address: bigint) => Uint8Array = addressToBytes;

/** The engine's BlockEnv of a block context; `blobFee` defaults to the minimum (Kestrel's blocks carry no blobs). */
export function blockEnvOf(ctx: BlockContext, chainId: bigint, blobFee: bigint = MIN_BLOB_BASE_FEE): BlockEnv {
  return {
    number: ctx.number,
    timestamp: ctx.timestamp,
    coinbase: addressOf(ctx.coinbase),
    gasLimit: ctx.gasLimit,
    baseFee: ctx.baseFeePerGas,
    prevRandao: bytesToBigint(ctx.mixHash),
    blobBaseFee: blobFee,
    chainId,
  };
}

function accessListOf(list: readonly AccessListItem[] | undefined): EngineAccessItem[] {
  return (list ?? []).map((a) => ({ address: addressOf(a.address), storageKeys: a.storageKeys.map(bytesToBigint) }));
}

const EMPTY = new Uint8Array(0);

/** The engine's Tx of a decoded, signed transaction whose sender was recovered (types 0, 1, 2, 3 and 4). */
export function engineTxOf(tx: Transaction, sender: Uint8Array): Tx {
  const dynamic = tx.type >= 2;
  return {
    type: tx.type,
    from: addressOf(sender),
    to: tx.to === undefined ? undefined : addressOf(tx.to),
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    value: tx.value,
    data: tx.data,
    gasPrice: dynamic ? 0n : tx.gasPrice,
    maxFeePerGas: dynamic ? tx.maxFeePerGas : 0n,
    maxPriorityFeePerGas: dynamic ? tx.maxPriorityFeePerGas : 0n,
    accessList: tx.accessList.length === 0 ? [] : accessListOf(tx.accessList),
    maxFeePerBlobGas: tx.maxFeePerBlobGas,
    blobVersionedHashes: tx.blobVersionedHashes as Uint8Array[],
    authorizationList: tx.authorizationList.map((a) => ({
      chainId: a.chainId,
      address: addressOf(a.address),
      nonce: a.nonce,
      yParity: a.yParity,
      r: a.r,
      s: a.s,
    })),
  };
}

/**
 * The engine's Tx of a call request (eth_call, eth_estimateGas, …) run with `gas` as the sender with `nonce`. The
 * type follows geth's TransactionArgs: a fee-market field makes it a 1559 message (maxFeePerGas defaulting to the
 * tip), an access list alone a 2930 one, otherwise legacy; absent prices are zero.
 */
export function callTxOf(req: CallRequest, gas: bigint, nonce: bigint): Tx {
  const dynamic = req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined;
  return {
    type: dynamic ? 2 : req.accessList ? 1 : 0,
    from: req.from ? addressOf(req.from) : 0n,
    to: req.to ? addressOf(req.to) : undefined,
    nonce,
    gasLimit: gas,
    value: req.value ?? 0n,
    data: req.data ?? EMPTY,
    gasPrice: dynamic ? 0n : (req.gasPrice ?? 0n),
    maxFeePerGas: dynamic ? (req.maxFeePerGas ?? req.maxPriorityFeePerGas ?? 0n) : 0n,
    maxPriorityFeePerGas: dynamic ? (req.maxPriorityFeePerGas ?? 0n) : 0n,
    accessList: accessListOf(req.accessList),
    maxFeePerBlobGas: 0n,
    blobVersionedHashes: [],
    authorizationList: [],
  };
}
