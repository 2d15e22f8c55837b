// What withSender assumes of @ethereumjs/tx: an unfrozen tx's getSenderAddress can be replaced on the instance, and
// the tx's other answers (hash, fields, serialisation) do not depend on recovering the sender.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { hexToBytes } from '@ethereumjs/util';
import { createChainCommon } from '../app/evm/common.ts';
import { withSender } from './txWithSender.ts';

const common = createChainCommon(9000n);
const key = hexToBytes('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const to = hexToBytes('0x00000000000000000000000000000000000000aa');
const other = hexToBytes('0x00000000000000000000000000000000000000bb');

describe('withSender', () => {
  for (const signed of [
    createLegacyTx({ to, gasLimit: 21000n, gasPrice: 10n, nonce: 3n }, { common }).sign(key),
    createFeeMarket1559Tx({ to, gasLimit: 21000n, maxFeePerGas: 9n, maxPriorityFeePerGas: 1n }, { common }).sign(key),
  ]) {
    it(`attaches the sender without recovery, keeping hash and encoding (type ${signed.type})`, () => {
      const recovered = signed.getSenderAddress().bytes;
      const tx = withSender(signed.serialize(), common, other);
      // The attached sender wins over the signature's (the dev toolkit impersonates accounts this way).
      assert.deepEqual(tx.getSenderAddress().bytes, other);
      assert.notDeepEqual(recovered, other);
      assert.deepEqual(tx.hash(), signed.hash());
      assert.deepEqual(tx.serialize(), signed.serialize());
      assert.ok(Object.isFrozen(tx));
      assert.deepEqual(withSender(signed.serialize(), common, recovered).getSenderAddress().bytes, recovered);
    });
  }
});
