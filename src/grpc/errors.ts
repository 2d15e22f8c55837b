// The one table from domain errors to gRPC status codes (the Cosmos SDK keeper's choices: InvalidArgument for
// bad input, NotFound for a missing height or object, Internal for anything unexpected).
import { status as Status } from '@grpc/grpc-js';
import {
  InvalidParamsError,
  InvalidRequestError,
  KestrelError,
  LimitExceededError,
  NotEnabledError,
  NotFoundError,
  ParseError,
  UnsupportedError,
} from '../errors/index.ts';
import { MissingTrieNodeError } from '../primitives/trie/read.ts';

/** A gRPC status as it goes on the wire. */
export interface GrpcStatus {
  code: Status;
  details: string;
}

const table: Array<[new (...args: never[]) => Error, Status]> = [
  [InvalidParamsError, Status.INVALID_ARGUMENT],
  [InvalidRequestError, Status.INVALID_ARGUMENT],
  [ParseError, Status.INVALID_ARGUMENT],
  [NotFoundError, Status.NOT_FOUND],
  [LimitExceededError, Status.RESOURCE_EXHAUSTED],
  [UnsupportedError, Status.UNIMPLEMENTED],
  [NotEnabledError, Status.UNIMPLEMENTED],
];

/** Maps any thrown value to the gRPC status the client sees. */
export function toGrpcStatus(err: unknown): GrpcStatus {
  if (err instanceof MissingTrieNodeError) return { code: Status.INTERNAL, details: err.message };
  if (err instanceof KestrelError) {
    for (const [cls, code] of table) if (err instanceof cls) return { code, details: err.message };
    return { code: Status.INTERNAL, details: err.message };
  }
  // Unexpected failures are logged by the caller; the client gets no internals.
  return { code: Status.INTERNAL, details: 'internal error' };
}
