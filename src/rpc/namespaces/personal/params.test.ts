import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeParams } from '../../params/codec.ts';
import { DEFAULT_UNLOCK_SECONDS, checkWalletUrl, parseRawKey, unlockDurationMs, unlockSeconds } from './params.ts';
import { optional } from '../../params/index.ts';

const KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

describe('personal_ params', () => {
  it("raw keys with or without 0x; geth's messages otherwise", () => {
    assert.equal(Buffer.from(parseRawKey(KEY)).toString('hex'), KEY);
    assert.equal(Buffer.from(parseRawKey('0x' + KEY.toUpperCase())).toString('hex'), KEY);
    assert.throws(() => parseRawKey('zz' + KEY.slice(2)), { message: "invalid hex character 'z' in private key" });
    assert.throws(() => parseRawKey(KEY.slice(2)), { message: 'invalid length, need 256 bits' });
    assert.throws(() => parseRawKey('00'.repeat(32)), { message: 'invalid private key' });
    assert.throws(() => parseRawKey('ff'.repeat(32)), { message: 'invalid private key' });
  });

  it('unlock duration: number or QUANTITY seconds, default 300, 0 = until exit, too large refused', () => {
    const codecs = [optional(unlockSeconds, () => DEFAULT_UNLOCK_SECONDS)];
    assert.deepEqual(decodeParams([], codecs), [300n]);
    assert.deepEqual(decodeParams([null], codecs), [300n]);
    assert.deepEqual(decodeParams([2], codecs), [2n]);
    assert.deepEqual(decodeParams(['0x10'], codecs), [16n]);
    assert.throws(() => decodeParams([-1], codecs), {
      message: 'invalid argument 0: json: cannot unmarshal number -1 into Go value of type uint64',
    });
    assert.throws(() => decodeParams([1.5], codecs), /invalid argument 0/);
    assert.throws(() => decodeParams([true], codecs), {
      message: 'invalid argument 0: json: cannot unmarshal bool into Go value of type uint64',
    });
    assert.equal(unlockDurationMs(0n), undefined);
    assert.equal(unlockDurationMs(2n), 2000);
    assert.equal(unlockDurationMs(9223372036n), 9223372036000);
    assert.throws(() => unlockDurationMs(9223372037n), { message: 'unlock duration too large' });
  });

  it('wallet URLs need a scheme', () => {
    checkWalletUrl('keystore:///x');
    assert.throws(() => checkWalletUrl('/x'), { message: 'protocol scheme missing' });
    assert.throws(() => checkWalletUrl('://x'), { message: 'protocol scheme missing' });
  });
});
