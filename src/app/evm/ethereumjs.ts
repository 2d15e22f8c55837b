// The one place that knows how @ethereumjs behaves beyond its typed API: the text of its errors, its private
// members, the methods Kestrel overrides at run time. The engine issue replaces this module and deletes it.
import type { Address } from '@ethereumjs/util';
import type { TxRejectReason } from '../../errors/index.ts';
import { bytesToHex } from '../../primitives/hex.ts';

/**
 * Why ethereumjs refused a transaction, read from its message (runTx and tx decoding throw plain Errors). The
 * classes follow the ABCI code each message got before reasons were typed, so LastResultsHash is unchanged.
 */
export function rejectReasonOf(message: string): TxRejectReason {
  if (message.startsWith('nonce too low')) return 'nonceTooLow';
  if (message.startsWith('nonce too high')) return 'nonceTooHigh';
  if (message.startsWith('insufficient funds')) return 'insufficientFunds';
  if (/underpriced|fee cap less than block base fee|max fee per gas less than/.test(message)) return 'underpriced';
  if (/gas too low|insufficient gas|exceeds block gas limit/.test(message)) return 'intrinsicGas';
  if (/^rlp:|too short|not supported|invalid sender|invalid chain id|replay-protected|oversized/.test(message))
    return 'malformed';
  return 'other';
}

/** Why runTx refused to start a call (its checks before execution), and the part of its message worth showing. */
export interface RunTxRefusal {
  reason: Extract<TxRejectReason, 'intrinsicGas' | 'insufficientFunds' | 'feeCapBelowBaseFee' | 'other'>;
  text: string;
}

/** Reads runTx's refusal from its message (ethereumjs appends a dump of the VM and tx after " (" or a newline). */
export function runTxRefusalOf(e: unknown): RunTxRefusal {
  const msg = e instanceof Error ? e.message : String(e);
  if (/gas limit/i.test(msg) && /intrinsic|upfront|too low/i.test(msg))
    return { reason: 'intrinsicGas', text: msg.split(' (')[0]! };
  if (/balance/i.test(msg) && /sender|enough|insufficient/i.test(msg))
    return { reason: 'insufficientFunds', text: msg };
  if (/base fee/i.test(msg)) return { reason: 'feeCapBelowBaseFee', text: msg };
  return { reason: 'other', text: msg.split('\n')[0]!.slice(0, 300) };
}

/** Thrown from inside the EVM when a call passes its deadline. */
export class CallTimeout extends Error {}

/** Whether runTx failed because a CallTimeout was thrown inside it (ethereumjs may rethrow it as its own Error). */
export function isCallTimeout(e: unknown): boolean {
  return e instanceof CallTimeout || (e as Error)?.message?.includes('Timeout') === true;
}

/**
 * Splits an ethereumjs EVM's precompile table in two: the returned live table (where calls find precompiles, and
 * where moves apply) and the fork's own set, which runTx keeps warming at each transaction. geth warms its static
 * precompile list too, so a precompile moved away leaves its old address warm and its new one cold.
 */
export function livePrecompiles(evm: unknown): Map<string, unknown> {
  const e = evm as {
    _precompiles: Map<string, unknown>;
    getPrecompile: (address: Address | string) => unknown;
  };
  const live = e._precompiles;
  const forkSet = new Map(live);
  e.getPrecompile = (address) =>
    live.get(
      typeof address === 'string'
        ? address.slice(2).padStart(40, '0').toLowerCase()
        : bytesToHex(address.bytes).slice(2),
    );
  Object.defineProperty(e, 'precompiles', { get: () => forkSet, configurable: true });
  return live;
}
