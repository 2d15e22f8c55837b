// Turns a transaction call object (eth_sendTransaction, personal_sendTransaction, eth_signTransaction) into an
// unsigned transaction, filling what the caller left out the way geth's TransactionArgs.setDefaults does, except
// that gas defaults to 90000 (SPEC §8) instead of an estimate.
import type { Common } from '@ethereumjs/common';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { KeyStoreError } from '../errors/index.ts';
import type { CallRequest } from '../primitives/callRequest.ts';

/** Gas of eth_sendTransaction when the request has none (SPEC §8). */
export const DEFAULT_SEND_GAS = 90_000n;

/** The fee market as the defaults need it. */
export interface FeeSuggestion {
  /** Base fee of the next block. */
  nextBaseFee: bigint;
  /** Suggested priority fee (eth_maxPriorityFeePerGas). */
  tip: bigint;
  /** The node's minimum gas price: a default fee cap below it would only be refused. */
  minGasPrice: bigint;
}

/** What filling defaults reads from the node. */
export interface TxDefaultsSource {
  chainId: bigint;
  pendingNonce(address: Uint8Array): Promise<bigint>;
  fees(): FeeSuggestion;
}

/** A fully specified transaction, ready to build and sign. */
export interface FilledTx {
  type: 0 | 1 | 2;
  nonce: bigint;
  gasLimit: bigint;
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accessList?: [Uint8Array, Uint8Array[]][];
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

function chooseType(req: CallRequest): 0 | 1 | 2 {
  const has1559 = req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined;
  if (req.type === undefined) {
    if (req.gasPrice !== undefined) return req.accessList !== undefined ? 1 : 0;
    return 2;
  }
  if (req.type > 2n) throw new KeyStoreError(`transaction type ${req.type} not supported`);
  const t = Number(req.type) as 0 | 1 | 2;
  if (t < 2 && has1559)
    throw new KeyStoreError(`maxFeePerGas or maxPriorityFeePerGas specified for a type ${t} transaction`);
  if (t === 2 && req.gasPrice !== undefined) throw new KeyStoreError('gasPrice specified for a type 2 transaction');
  return t;
}

/** The checks geth's eth_signTransaction makes before filling anything: the caller must fix gas, fees and nonce. */
export function requireSignFields(req: CallRequest): void {
  if (req.from === undefined) throw new KeyStoreError('sender not specified');
  if (req.gas === undefined) throw new KeyStoreError('gas not specified');
  if (req.gasPrice === undefined && (req.maxPriorityFeePerGas === undefined || req.maxFeePerGas === undefined)) {
    throw new KeyStoreError('missing gasPrice or maxFeePerGas/maxPriorityFeePerGas');
  }
  if (req.nonce === undefined) throw new KeyStoreError('nonce not specified');
}

/** Fills nonce (pending), gas (90000), fees (fee market), value and data; checks chain id and contract creation. */
export async function fillTxDefaults(req: CallRequest, from: Uint8Array, src: TxDefaultsSource): Promise<FilledTx> {
  if (req.chainId !== undefined && req.chainId !== src.chainId) {
    throw new KeyStoreError(`chainId does not match node's (have=${req.chainId}, want=${src.chainId})`);
  }
  const data = req.data ?? new Uint8Array();
  if (req.to === undefined && data.length === 0) throw new KeyStoreError('contract creation without any data provided');
  const type = chooseType(req);
  const out: FilledTx = {
    type,
    nonce: req.nonce ?? (await src.pendingNonce(from)),
    gasLimit: req.gas ?? DEFAULT_SEND_GAS,
    value: req.value ?? 0n,
    data,
  };
  if (req.to !== undefined) out.to = req.to;
  if (type >= 1) out.accessList = (req.accessList ?? []).map((a) => [a.address, a.storageKeys]);
  if (type < 2) {
    if (req.gasPrice !== undefined) out.gasPrice = req.gasPrice;
    else {
      const f = src.fees();
      out.gasPrice = max(f.nextBaseFee + f.tip, f.minGasPrice);
    }
    return out;
  }
  let tip = req.maxPriorityFeePerGas;
  let feeCap = req.maxFeePerGas;
  if (tip === undefined || feeCap === undefined) {
    const f = src.fees();
    // A caller-given cap bounds the suggested tip rather than making the request fail.
    tip ??= feeCap !== undefined && f.tip > feeCap ? feeCap : f.tip;
    feeCap ??= max(2n * f.nextBaseFee + tip, f.minGasPrice);
  }
  if (feeCap < tip) throw new KeyStoreError(`maxFeePerGas (${feeCap}) < maxPriorityFeePerGas (${tip})`);
  out.maxFeePerGas = feeCap;
  out.maxPriorityFeePerGas = tip;
  return out;
}

/** Builds the unsigned transaction for the chain's Common. */
export function buildUnsignedTx(f: FilledTx, common: Common): TypedTransaction {
  return createTx(
    {
      type: f.type,
      nonce: f.nonce,
      gasLimit: f.gasLimit,
      to: f.to,
      value: f.value,
      data: f.data,
      gasPrice: f.gasPrice,
      maxFeePerGas: f.maxFeePerGas,
      maxPriorityFeePerGas: f.maxPriorityFeePerGas,
      accessList: f.accessList,
      chainId: f.type >= 1 ? common.chainId() : undefined,
    },
    { common },
  );
}
