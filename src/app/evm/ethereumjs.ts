// What is left of the ethereumjs adapter: the ABCI reason of a tx a block could not include, read from its message.
// Block execution runs on Kestrel's engine (with geth's words); the classes stay those the ethereumjs-era messages
// had, because the codes are part of CometBFT's LastResultsHash and chains holding such blocks must still replay.
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
