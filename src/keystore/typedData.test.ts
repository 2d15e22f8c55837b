import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypedDataEncoder } from 'ethers';
import { InvalidParamsError } from '../errors/index.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { parseTypedData, typedDataDigest } from './typedData.ts';

const domain = {
  name: 'Ether Mail',
  version: '1',
  chainId: 9000,
  verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
};
const types = {
  Person: [
    { name: 'name', type: 'string' },
    { name: 'wallets', type: 'address[]' },
  ],
  Mail: [
    { name: 'from', type: 'Person' },
    { name: 'to', type: 'Person[]' },
    { name: 'contents', type: 'string' },
    { name: 'attachment', type: 'bytes' },
    { name: 'nonce', type: 'uint64' },
    { name: 'delta', type: 'int128' },
    { name: 'tag', type: 'bytes4' },
    { name: 'urgent', type: 'bool' },
  ],
};
const message = {
  from: { name: 'Cow', wallets: ['0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826'] },
  to: [
    {
      name: 'Bob',
      wallets: ['0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB', '0xB0B0b0b0b0b0B000000000000000000000000000'],
    },
  ],
  contents: 'Hello, Bob!',
  attachment: '0xdeadbeef',
  nonce: '18446744073709551615',
  delta: -42,
  tag: '0x01020304',
  urgent: true,
};

describe('EIP-712 digest', () => {
  it('equals ethers TypedDataEncoder.hash for nested structs, arrays, bytes, ints and bool', () => {
    const payload = TypedDataEncoder.getPayload(domain, types, message);
    const td = parseTypedData(payload);
    assert.equal(bytesToHex(typedDataDigest(td)), TypedDataEncoder.hash(domain, types, message));
    // As a JSON string (what some wallets send), and without EIP712Domain in types.
    assert.equal(
      bytesToHex(typedDataDigest(parseTypedData(JSON.stringify({ types, primaryType: 'Mail', domain, message })))),
      TypedDataEncoder.hash(domain, types, message),
    );
  });
  it('refuses malformed documents and out-of-range values with invalid params', () => {
    assert.throws(() => parseTypedData('nope'), InvalidParamsError);
    assert.throws(() => parseTypedData({ types: [], primaryType: 'X' }), InvalidParamsError);
    const bad = parseTypedData({
      types,
      primaryType: 'Mail',
      domain,
      message: { ...message, nonce: '18446744073709551616' },
    });
    assert.throws(() => typedDataDigest(bad), /does not fit uint64/);
    const missing = parseTypedData({ types, primaryType: 'Mail', domain, message: { contents: 'x' } });
    assert.throws(() => typedDataDigest(missing), /is missing/);
  });
});
