// The one table from domain errors to JSON-RPC error objects (EIP-1474 codes, geth's conventions).
import {
  ExecutionError,
  InvalidParamsError,
  InvalidRequestError,
  KestrelError,
  KeyStoreError,
  LimitExceededError,
  MethodNotFoundError,
  MethodNotSupportedError,
  NotEnabledError,
  StorageFailedError,
  NotFoundError,
  ParseError,
  RevertError,
  SimulateError,
  TxRejectedError,
  UnauthorizedError,
  PrunedHistoryError,
  UnsupportedError,
  TxSyncTimeoutError,
  DevOperationError,
  UpstreamError,
} from '../errors/index.ts';
import type { SimulateFailure } from '../errors/index.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { MissingTrieNodeError } from '../primitives/trie/read.ts';

/** A JSON-RPC error object as it goes on the wire. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const SERVER_ERROR = -32000;
/** geth's code for a reply over the response-size cap. */
export const RESPONSE_TOO_LARGE = -32003;
export const METHOD_NOT_SUPPORTED = -32004;
export const LIMIT_EXCEEDED = -32005;
export const EXECUTION_REVERTED = 3;
/** geth's (EIP-7966's) code for eth_sendRawTransactionSync's timeout; `data` is the tx hash. */
export const TX_SYNC_TIMEOUT = 4;
export const UNAUTHORIZED = 4100;
/** geth's (and reth's) code for history this node does not have (EIP-4444). */
export const PRUNED_HISTORY = 4444;

const table: Array<[new (...args: never[]) => Error, number]> = [
  [ParseError, PARSE_ERROR],
  [InvalidRequestError, INVALID_REQUEST],
  [MethodNotFoundError, METHOD_NOT_FOUND],
  [InvalidParamsError, INVALID_PARAMS],
  [RevertError, EXECUTION_REVERTED],
  [UnauthorizedError, UNAUTHORIZED],
  [PrunedHistoryError, PRUNED_HISTORY],
  [LimitExceededError, LIMIT_EXCEEDED],
  [MethodNotSupportedError, METHOD_NOT_SUPPORTED],
  [TxRejectedError, SERVER_ERROR],
  [ExecutionError, SERVER_ERROR],
  [NotFoundError, SERVER_ERROR],
  [UnsupportedError, SERVER_ERROR],
  [NotEnabledError, SERVER_ERROR],
  [StorageFailedError, SERVER_ERROR],
  [KeyStoreError, SERVER_ERROR],
  [DevOperationError, INTERNAL_ERROR],
  [UpstreamError, SERVER_ERROR],
];

/** eth_simulateV1's codes (geth's internal/ethapi/errors.go and the execution-apis spec). */
const SIMULATE_CODES: Record<SimulateFailure, number> = {
  NONCE_TOO_LOW: -38010,
  NONCE_TOO_HIGH: -38011,
  BASE_FEE_TOO_LOW: -38012,
  INTRINSIC_GAS: -38013,
  INSUFFICIENT_FUNDS: -38014,
  BLOCK_GAS_LIMIT_REACHED: -38015,
  BLOCK_NUMBER_INVALID: -38020,
  BLOCK_TIMESTAMP_INVALID: -38021,
  SENDER_NOT_EOA: -38024,
  INIT_CODE_TOO_LARGE: -38025,
  CLIENT_LIMIT_EXCEEDED: -38026,
  INVALID_PARAMS: INVALID_PARAMS,
  INTERNAL: INTERNAL_ERROR,
};

/** True for an error the node means to answer with (a domain error), false for a crash. */
export function isDomainError(err: unknown): boolean {
  return err instanceof KestrelError || err instanceof MissingTrieNodeError;
}

/** Maps any thrown value to the JSON-RPC error object the client sees. */
export function toRpcError(err: unknown): RpcErrorObject {
  if (err instanceof RevertError) {
    return { code: EXECUTION_REVERTED, message: err.message, data: bytesToHex(err.data) };
  }
  if (err instanceof TxSyncTimeoutError)
    return { code: TX_SYNC_TIMEOUT, message: err.message, data: bytesToHex(err.hash) };
  if (err instanceof SimulateError) return { code: SIMULATE_CODES[err.reason], message: err.message };
  // The ground floor's own error (it sits below errors/): geth answers a state it lacks with -32000 and this text.
  if (err instanceof MissingTrieNodeError) return { code: SERVER_ERROR, message: err.message };
  if (err instanceof KestrelError) {
    for (const [cls, code] of table) if (err instanceof cls) return { code, message: err.message };
    return { code: SERVER_ERROR, message: err.message };
  }
  // An unexpected failure: geth reports handler crashes as -32000 without leaking internals.
  return { code: SERVER_ERROR, message: 'method handler crashed' };
}
