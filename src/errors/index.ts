// Domain errors. They know nothing about JSON-RPC or gRPC; rpc/errors.ts and grpc/errors.ts map them to codes.
// Messages copy geth's wording where geth has one, because viem and ethers match on the text.

/** Base class of every error the node raises on purpose. */
export class KestrelError extends Error {
  override name = 'KestrelError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A request parameter could not be decoded (geth: "invalid argument N: …"). */
export class InvalidParamsError extends KestrelError {
  override name = 'InvalidParamsError';
}

/** The method name is unknown or its namespace is disabled. */
export class MethodNotFoundError extends KestrelError {
  override name = 'MethodNotFoundError';
  constructor(readonly method: string) {
    super(`the method ${method} does not exist/is not available`);
  }
}

/** Notifications need a connection that carries them (WebSocket) or the subscription name is unknown (geth: -32601). */
export class NotificationsUnsupportedError extends MethodNotFoundError {
  override name = 'NotificationsUnsupportedError';
  constructor(message = 'notifications not supported') {
    super('eth_subscribe');
    this.message = message;
  }
}

/** The request envelope itself is malformed. */
export class InvalidRequestError extends KestrelError {
  override name = 'InvalidRequestError';
}

/** The body is not valid JSON. */
export class ParseError extends KestrelError {
  override name = 'ParseError';
}

/**
 * Why a transaction was refused. The pool, the journal, the ABCI code table and the CometBFT RPC branch on this;
 * the message is for the client only (geth's wording, which viem and ethers match on).
 */
export type TxRejectReason =
  // Undecodable or not acceptable as such (ABCI code 2).
  | 'malformed'
  | 'unsupportedType'
  | 'oversized'
  | 'notReplayProtected'
  | 'invalidChainId'
  | 'invalidSender'
  // Gas (code 11).
  | 'gasLimitAboveBlock'
  | 'blockSizeAboveCap'
  | 'gasLimitTooHigh'
  | 'intrinsicGas'
  | 'floorDataGas'
  // Price (code 13).
  | 'underpriced'
  | 'replacementUnderpriced'
  | 'feeCapBelowBaseFee'
  // Nonce (code 32) and funds (code 5).
  | 'nonceTooLow'
  | 'nonceTooHigh'
  | 'insufficientFunds'
  // Everything else (code 18).
  | 'tipAboveFeeCap'
  | 'alreadyKnown'
  | 'poolFull'
  | 'accountLimit'
  | 'journalFailed'
  | 'consensusRefused'
  | 'consensusUnreachable'
  | 'other';

/** A transaction was refused at admission or by block execution; `reason` says why, the message in geth's words. */
export class TxRejectedError extends KestrelError {
  override name = 'TxRejectedError';
  constructor(
    readonly reason: TxRejectReason,
    message: string,
  ) {
    super(message);
  }
}

/** EVM execution reverted; `data` holds the revert bytes. */
export class RevertError extends KestrelError {
  override name = 'RevertError';
  constructor(
    readonly data: Uint8Array,
    readonly reason?: string,
  ) {
    super(reason !== undefined ? `execution reverted: ${reason}` : 'execution reverted');
  }
}

/** A dev-toolkit operation found nothing to act on (Anvil answers these -32603, e.g. no ERC20 balance slot found). */
export class DevOperationError extends KestrelError {
  override name = 'DevOperationError';
}

/**
 * eth_sendRawTransactionSync's wait ran out: the tx is pooled but no committed block holds it yet (geth's code 4,
 * with the tx hash as data, so the client can go on polling for the receipt).
 */
export class TxSyncTimeoutError extends KestrelError {
  override name = 'TxSyncTimeoutError';
  constructor(
    readonly hash: Uint8Array,
    message: string,
  ) {
    super(message);
  }
}

/** Blocks below this node's first stored block (it joined by state sync): geth's EIP-4444 error, code 4444. */
export class PrunedHistoryError extends KestrelError {
  override name = 'PrunedHistoryError';
  constructor() {
    super('pruned history unavailable');
  }
}

/** EVM execution failed for a reason other than revert (out of gas, invalid opcode, timeout, …). */
export class ExecutionError extends KestrelError {
  override name = 'ExecutionError';
}

/** A referenced block, header or state does not exist (geth: "header not found"). */
export class NotFoundError extends KestrelError {
  override name = 'NotFoundError';
}

/** A configured resource limit was exceeded (range cap, batch size, filter cap, …). */
export class LimitExceededError extends KestrelError {
  override name = 'LimitExceededError';
}

/** A private method was called without a valid bearer token. */
export class UnauthorizedError extends KestrelError {
  override name = 'UnauthorizedError';
  constructor() {
    super('unauthorized');
  }
}

/** The method exists but cannot be honoured on this chain (PoW-only, wallet features, …). */
export class UnsupportedError extends KestrelError {
  override name = 'UnsupportedError';
}

/** The method exists for compatibility but this chain cannot honour it; the message says why (miner_start, …). */
export class MethodNotSupportedError extends KestrelError {
  override name = 'MethodNotSupportedError';
}

/**
 * The database could not be written (a full disk, an I/O error). After a failed write LevelDB's log may end in a
 * partial record that a later write would sit behind and be lost with at reopen, so the node writes nothing more:
 * blocks stop until the operator frees space and restarts it; reads go on.
 */
export class StorageFailedError extends KestrelError {
  override name = 'StorageFailedError';
}

/** The feature is wired to a later part of the product and is switched off in this build. */
export class NotEnabledError extends KestrelError {
  override name = 'NotEnabledError';
}

/** A key store or signing operation failed (wrong passphrase, unknown or locked account, …); geth's wording. */
export class KeyStoreError extends KestrelError {
  override name = 'KeyStoreError';
}

/** Why a set of state or block overrides cannot be applied (geth's wording in the message). */
export type OverrideFailure =
  | 'NOT_PRECOMPILE'
  | 'MOVE_TARGET_OVERRIDDEN'
  | 'OVERRIDDEN_BY_PRECOMPILE'
  | 'STATE_AND_STATE_DIFF'
  | 'BLOCK_FIELD_UNSUPPORTED';

/** State or block overrides that cannot be applied. */
export class OverrideError extends KestrelError {
  override name = 'OverrideError';
  constructor(
    readonly reason: OverrideFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Why eth_simulateV1 refused a request or a simulated transaction (each has its own JSON-RPC code). */
export type SimulateFailure =
  | 'NONCE_TOO_LOW'
  | 'NONCE_TOO_HIGH'
  | 'BASE_FEE_TOO_LOW'
  | 'INTRINSIC_GAS'
  | 'INSUFFICIENT_FUNDS'
  | 'BLOCK_GAS_LIMIT_REACHED'
  | 'BLOCK_NUMBER_INVALID'
  | 'BLOCK_TIMESTAMP_INVALID'
  | 'SENDER_NOT_EOA'
  | 'INIT_CODE_TOO_LARGE'
  | 'CLIENT_LIMIT_EXCEEDED'
  | 'INVALID_PARAMS'
  | 'INTERNAL';

/** eth_simulateV1 refused the request, or one of its transactions is invalid (geth's message). */
export class SimulateError extends KestrelError {
  override name = 'SimulateError';
  constructor(
    readonly reason: SimulateFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Why a forked chain could not read its upstream. */
export type UpstreamFailure = 'unreachable' | 'timeout' | 'badResponse' | 'rpcError' | 'proofMismatch';

/** The fork's upstream JSON-RPC endpoint failed (after retries); the message names the upstream. */
export class UpstreamError extends KestrelError {
  override name = 'UpstreamError';
  constructor(
    readonly reason: UpstreamFailure,
    readonly url: string,
    detail: string,
  ) {
    super(`fork upstream ${url} failed (${reason}): ${detail}`);
  }
}

/** The message of a thrown value: an Error's message, anything else as text (for answers and one-line notes). */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  try {
    return String(e);
  } catch {
    return 'unprintable value';
  }
}
