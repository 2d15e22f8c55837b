// The one place that knows how @ethereumjs behaves beyond its typed API: the text of its errors, its private
// members, the methods Kestrel overrides at run time. The engine issue replaces this module and deletes it.
import type { TxRejectReason } from '../../errors/index.ts';

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
