// The one table from domain errors to ABCI (codespace, code, log), shared by the ABCI application (CheckTx, Query)
// and the CometBFT-style RPC of solo mode, following the Cosmos SDK's registered errors.
import {
  errorMessage,
  InvalidParamsError,
  NotFoundError,
  TxRejectedError,
  type TxRejectReason,
} from '../errors/index.ts';

/** The Cosmos SDK error code of a refused transaction (sdk codespace). */
export function rejectCode(reason: TxRejectReason): number {
  switch (reason) {
    case 'malformed':
    case 'unsupportedType':
    case 'oversized':
    case 'notReplayProtected':
    case 'invalidChainId':
    case 'invalidSender':
      return 2; // ErrTxDecode
    case 'insufficientFunds':
      return 5; // ErrInsufficientFunds
    case 'gasLimitAboveBlock':
    case 'blockSizeAboveCap':
    case 'gasLimitTooHigh':
    case 'intrinsicGas':
    case 'floorDataGas':
      return 11; // ErrOutOfGas
    case 'underpriced':
    case 'replacementUnderpriced':
    case 'feeCapBelowBaseFee':
      return 13; // ErrInsufficientFee
    case 'nonceTooLow':
    case 'nonceTooHigh':
      return 32; // ErrWrongSequence
    case 'tipAboveFeeCap':
    case 'alreadyKnown':
    case 'poolFull':
    case 'accountLimit':
    case 'journalFailed':
    case 'consensusRefused':
    case 'consensusUnreachable':
    case 'other':
      return 18; // ErrInvalidRequest
  }
}

/** ABCI (codespace, code) for a failed query or CheckTx, following the Cosmos SDK's registered errors. */
export function abciCode(err: unknown): { codespace: string; code: number; log: string } {
  const msg = errorMessage(err);
  if (err instanceof TxRejectedError) return { codespace: 'sdk', code: rejectCode(err.reason), log: msg };
  // Queries: the SDK wraps gRPC handler errors as "rpc error: code = … desc = …" with its ABCI error.
  if (err instanceof InvalidParamsError)
    return { codespace: 'sdk', code: 18, log: `rpc error: code = InvalidArgument desc = ${msg}: invalid request` };
  if (err instanceof NotFoundError)
    return { codespace: 'sdk', code: 22, log: `rpc error: code = NotFound desc = ${msg}: key not found` };
  return { codespace: 'sdk', code: 1, log: 'internal error' };
}
