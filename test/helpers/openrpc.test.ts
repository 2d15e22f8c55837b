// Self-test of the conformance validator: it must reject wrong shapes, or conformance.test.ts proves nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertConforms, compileWithComponents, conforms, methodsWithSchema } from './openrpc.ts';

describe('openrpc validator', () => {
  it('knows the eth_ methods the node serves', () => {
    const names = new Set(methodsWithSchema());
    for (const m of [
      'eth_chainId',
      'eth_getBlockByNumber',
      'eth_getTransactionReceipt',
      'eth_feeHistory',
      'eth_getBlockReceipts',
      'eth_protocolVersion',
      'net_version',
    ]) {
      assert.ok(names.has(m), m);
    }
  });

  it('accepts canonical QUANTITYs and rejects leading zeros / missing prefix / numbers', () => {
    assertConforms('eth_blockNumber', '0x0');
    assertConforms('eth_blockNumber', '0x1a');
    assert.equal(conforms('eth_blockNumber', '0x01'), false);
    assert.equal(conforms('eth_blockNumber', '1a'), false);
    assert.equal(conforms('eth_blockNumber', 26), false);
    assert.equal(conforms('eth_blockNumber', '0x1A'), false);
  });

  it('rejects a block object missing required fields, with a readable message', () => {
    assert.throws(
      () => assertConforms('eth_getBlockByNumber', { number: '0x1', hash: '0x12' }),
      (e: Error) => /eth_getBlockByNumber/.test(e.message) && /\/hash/.test(e.message) && /parentHash/.test(e.message),
    );
    assertConforms('eth_getBlockByNumber', null);
  });

  it('getBlockTransactionCountByNumber wants a QUANTITY, not a block object', () => {
    assertConforms('eth_getBlockTransactionCountByNumber', '0x2');
    assert.equal(conforms('eth_getBlockTransactionCountByNumber', { number: '0x1' }), false);
  });

  it('ethermint-style null block nonce does not conform', () => {
    assert.equal(conforms('eth_getBlockByNumber', { nonce: null }), false);
  });

  it('resolves #/components/schemas refs', () => {
    const v = compileWithComponents(
      { $ref: '#/components/schemas/uint' },
      { schemas: { uint: { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' } } },
    );
    assert.equal(v('0x10'), true);
    assert.equal(v('0x010'), false);
  });
});
