// The rejection reason a geth- or ethereumjs-worded refusal message stands for, with the classes those messages had
// as ABCI codes. Tests only: Kestrel's engine and decoder give typed reasons, and the tests check that a message
// read back lands on the same code (and build expected rejections from the ethereumjs oracle's messages).
import type { TxRejectReason } from '../../src/errors/index.ts';

/**
 * Why ethereumjs refused a transaction, read from its message (runTx and tx decoding throw plain Errors). The
 * classes follow the ABCI code each message got before reasons were typed, so LastResultsHash is unchanged.
 */
export function rejectReasonOf(message: string): TxRejectReason {
  if (message.startsWith('nonce too low')) return 'nonceTooLow';
  if (message.startsWith('nonce too high')) return 'nonceTooHigh';
  if (message.startsWith('insufficient funds')) return 'insufficientFunds';
  if (/underpriced|fee cap less than block base fee|max fee per gas less than/.test(message)) return 'underpriced';
  if (/gas too low|insufficient gas|exceeds block gas limit|gas limit too high|size exceeds maximum/.test(message))
    return 'intrinsicGas';
  if (/^rlp:|too short|not supported|invalid sender|invalid chain id|replay-protected|oversized/.test(message))
    return 'malformed';
  return 'other';
}
