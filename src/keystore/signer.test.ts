import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTxFromRLP } from '@ethereumjs/tx';
import { Wallet, verifyMessage } from 'ethers';
import { createSharedCommon } from '../app/evm/common.ts';
import { personalMessageHash, recoverPersonalMessage, signPersonalMessage, signTransaction } from './signer.ts';
import { buildUnsignedTx } from './txDefaults.ts';

const PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const KEY = Uint8Array.from(Buffer.from(PK.slice(2), 'hex'));
const wallet = new Wallet(PK);
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const utf8 = (s: string) => new TextEncoder().encode(s);

describe('signer', () => {
  it('personal messages: byte-identical to ethers signMessage, and verifyMessage recovers the signer', async () => {
    for (const msg of [utf8('hello'), new Uint8Array(), Uint8Array.from([0, 1, 2, 255]), utf8('ü'.repeat(200))]) {
      const sig = signPersonalMessage(msg, KEY);
      assert.equal(sig.length, 65);
      assert.ok(sig[64] === 27 || sig[64] === 28);
      assert.equal(hex(sig), await wallet.signMessage(msg));
      assert.equal(verifyMessage(msg, hex(sig)), wallet.address);
      assert.equal(hex(recoverPersonalMessage(msg, sig)), wallet.address.toLowerCase());
    }
  });

  it('hashes "\\x19Ethereum Signed Message:\\n" + decimal length + message', () => {
    // keccak256("\x19Ethereum Signed Message:\n5hello"), a widely published value.
    assert.equal(
      hex(personalMessageHash(utf8('hello'))),
      '0x50b2c43fd39106bafbba0da34fc430e1f91e3c96ea2acee2bc34119f92b37750',
    );
  });

  it("ecRecover refuses bad signatures with geth's messages", () => {
    const sig = signPersonalMessage(utf8('x'), KEY);
    assert.throws(() => recoverPersonalMessage(utf8('x'), sig.slice(0, 64)), {
      message: 'signature must be 65 bytes long',
    });
    const v1 = sig.slice();
    v1[64] = 1;
    assert.throws(() => recoverPersonalMessage(utf8('x'), v1), {
      message: 'invalid Ethereum signature (V is not 27 or 28)',
    });
    // A different message recovers some other address, never the signer.
    assert.notEqual(hex(recoverPersonalMessage(utf8('y'), sig)), wallet.address.toLowerCase());
  });

  it("signs legacy (EIP-155), access-list and 1559 transactions that recover to the key's address", () => {
    const common = createSharedCommon(9000n);
    const base = { nonce: 3n, gasLimit: 21000n, to: new Uint8Array(20).fill(1), value: 5n, data: new Uint8Array() };
    for (const f of [
      { ...base, type: 0 as const, gasPrice: 10n },
      { ...base, type: 1 as const, gasPrice: 10n, accessList: [] },
      { ...base, type: 2 as const, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, accessList: [] },
    ]) {
      const signed = signTransaction(buildUnsignedTx(f, common), KEY);
      const decoded = createTxFromRLP(signed.serialize(), { common });
      assert.equal(decoded.getSenderAddress().toString(), wallet.address.toLowerCase());
      assert.equal(decoded.type, f.type);
      if (f.type === 0) assert.ok(decoded.v === 9000n * 2n + 35n || decoded.v === 9000n * 2n + 36n, `v=${decoded.v}`);
      else assert.ok(decoded.v === 0n || decoded.v === 1n);
      // Deterministic (RFC 6979): signing twice gives the same bytes.
      assert.equal(hex(signTransaction(buildUnsignedTx(f, common), KEY).serialize()), hex(signed.serialize()));
    }
  });
});
