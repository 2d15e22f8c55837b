import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { InvalidParamsError, KestrelError, NotFoundError, TxRejectedError } from '../errors/index.ts';
import { toGrpcStatus } from './errors.ts';

describe('toGrpcStatus', () => {
  const cases: Array<[string, unknown, number, string]> = [
    ['bad input', new InvalidParamsError('invalid address: x'), status.INVALID_ARGUMENT, 'invalid address: x'],
    [
      'missing height',
      new NotFoundError('height 9 must be less than or equal to the current blockchain height 2'),
      status.NOT_FOUND,
      'height 9 must be less than or equal to the current blockchain height 2',
    ],
    ['other domain error', new TxRejectedError('nonceTooLow', 'nonce too low'), status.INTERNAL, 'nonce too low'],
    ['plain domain error', new KestrelError('store corrupt'), status.INTERNAL, 'store corrupt'],
    ['crash', new TypeError('x is undefined'), status.INTERNAL, 'internal error'],
  ];
  for (const [name, err, code, details] of cases) {
    test(name, () => assert.deepEqual(toGrpcStatus(err), { code, details }));
  }
});
