// The ABCI reasons of block-rejected txs, by message (the classes their codes had; see rejectReason.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rejectReasonOf } from './rejectReason.ts';

describe('block rejection reasons', () => {
  it('classifies block-execution refusals as the ABCI codes had them', () => {
    assert.equal(rejectReasonOf('nonce too low'), 'nonceTooLow');
    assert.equal(rejectReasonOf('insufficient funds for gas * price + value'), 'insufficientFunds');
    assert.equal(rejectReasonOf('max fee per gas less than block base fee: x'), 'underpriced');
    assert.equal(rejectReasonOf('intrinsic gas too low'), 'intrinsicGas');
    assert.equal(rejectReasonOf('rlp: invalid transaction: x'), 'malformed');
    assert.equal(rejectReasonOf("the tx doesn't have the correct nonce. account has nonce of: 0"), 'other');
  });
});
