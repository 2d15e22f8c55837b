// The ABCI code of every refusal reason, with the geth message each reason carries: the codes are hashed into
// LastResultsHash, so they must not move when a message is reworded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rejectReasonOf } from '../../test/helpers/rejectReason.ts';
import { InvalidParamsError, NotFoundError, TxRejectedError, type TxRejectReason } from '../errors/index.ts';
import { abciCode, rejectCode } from './codes.ts';

const cases: Array<[TxRejectReason, string, number]> = [
  ['malformed', 'typed transaction too short', 2],
  ['oversized', 'oversized data', 2],
  ['unsupportedType', 'transaction type not supported', 2],
  ['malformed', 'rlp: invalid transaction: bad', 2],
  ['notReplayProtected', 'only replay-protected (EIP-155) transactions allowed over RPC', 2],
  ['invalidChainId', 'invalid chain id for signer: have 1 want 9000', 2],
  ['invalidSender', 'invalid sender', 2],
  ['insufficientFunds', 'insufficient funds for gas * price + value', 5],
  ['gasLimitAboveBlock', 'exceeds block gas limit', 11],
  ['gasLimitTooHigh', 'transaction gas limit too high (cap: 16777216, tx: 30000000)', 11],
  ['blockSizeAboveCap', 'block RLP-encoded size exceeds maximum', 11],
  ['intrinsicGas', 'intrinsic gas too low', 11],
  ['floorDataGas', 'insufficient gas for floor data gas cost', 11],
  ['underpriced', 'transaction underpriced', 13],
  ['replacementUnderpriced', 'replacement transaction underpriced', 13],
  ['feeCapBelowBaseFee', 'max fee per gas less than block base fee: address 0x00, maxFeePerGas: 1, baseFee: 7', 13],
  ['nonceTooLow', 'nonce too low', 32],
  ['nonceTooHigh', 'nonce too high: address 0x00, tx: 3 state: 1', 32],
  ['tipAboveFeeCap', 'max priority fee per gas higher than max fee per gas', 18],
  ['alreadyKnown', 'already known', 18],
  ['poolFull', 'txpool is full', 18],
  ['accountLimit', 'account limit exceeded', 18],
  ['journalFailed', 'transaction not accepted: the pool journal could not be written', 18],
];

describe('abciCode', () => {
  it('gives each refusal reason its Cosmos SDK code and keeps the message as the log', () => {
    for (const [reason, message, code] of cases) {
      assert.deepEqual(abciCode(new TxRejectedError(reason, message)), { codespace: 'sdk', code, log: message });
    }
  });

  it('agrees with the reading of foreign messages: a geth message read back lands on the same code', () => {
    for (const [, message, code] of cases) assert.equal(rejectCode(rejectReasonOf(message)), code, message);
  });

  it('wraps query errors as the SDK does and hides anything else', () => {
    assert.deepEqual(abciCode(new InvalidParamsError('bad address')), {
      codespace: 'sdk',
      code: 18,
      log: 'rpc error: code = InvalidArgument desc = bad address: invalid request',
    });
    assert.equal(abciCode(new NotFoundError('no such height')).code, 22);
    assert.deepEqual(abciCode(new Error('boom')), { codespace: 'sdk', code: 1, log: 'internal error' });
  });
});
