// The one table from domain errors to ABCI (codespace, code, log), shared by the ABCI application (CheckTx, Query)
// and the CometBFT-style RPC of solo mode, following the Cosmos SDK's registered errors.
import { InvalidParamsError, NotFoundError, TxRejectedError } from '../errors/index.ts';

/** ABCI (codespace, code) for a failed query or CheckTx, following the Cosmos SDK's registered errors. */
export function abciCode(err: unknown): { codespace: string; code: number; log: string } {
  const msg = err instanceof Error ? err.message : String(err);
  if (err instanceof TxRejectedError) {
    if (/^nonce too (low|high)/.test(msg)) return { codespace: 'sdk', code: 32, log: msg };
    if (msg.startsWith('insufficient funds')) return { codespace: 'sdk', code: 5, log: msg };
    if (/underpriced|fee cap less than block base fee|max fee per gas less than/.test(msg))
      return { codespace: 'sdk', code: 13, log: msg };
    if (/gas too low|insufficient gas|exceeds block gas limit/.test(msg))
      return { codespace: 'sdk', code: 11, log: msg };
    if (/^rlp:|too short|not supported|invalid sender|invalid chain id|replay-protected|oversized/.test(msg))
      return { codespace: 'sdk', code: 2, log: msg };
    return { codespace: 'sdk', code: 18, log: msg };
  }
  // Queries: the SDK wraps gRPC handler errors as "rpc error: code = … desc = …" with its ABCI error.
  if (err instanceof InvalidParamsError)
    return { codespace: 'sdk', code: 18, log: `rpc error: code = InvalidArgument desc = ${msg}: invalid request` };
  if (err instanceof NotFoundError)
    return { codespace: 'sdk', code: 22, log: `rpc error: code = NotFound desc = ${msg}: key not found` };
  return { codespace: 'sdk', code: 1, log: 'internal error' };
}
