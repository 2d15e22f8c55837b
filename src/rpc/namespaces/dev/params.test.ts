import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidParamsError, MethodNotFoundError } from '../../../errors/index.ts';
import type { RpcContext } from '../../context.ts';
import { decodeParams } from '../../params/codec.ts';
import { buildMethodTable, createDispatcher } from '../../registry.ts';
import { devNamespaces } from './index.ts';
import { mineParams, u64, word32 } from './params.ts';

describe('dev toolkit params', () => {
  it('numbers come as JSON integers or hex (leading zeros allowed)', () => {
    assert.equal(u64.decode(3600), 3600n);
    assert.equal(u64.decode('0xe10'), 3600n);
    assert.equal(u64.decode('0x0e10'), 3600n);
    assert.throws(() => u64.decode(-1), /non-negative/);
    assert.throws(() => u64.decode('3600'), /hex quantity or an integer/);
    assert.throws(() => u64.decode('0x1' + '0'.repeat(16)), /64 bits/);
  });
  it('evm_mine takes a timestamp or {blocks, timestamp}', () => {
    assert.deepEqual(mineParams.decode(100), { blocks: 1n, timestamp: 100n });
    assert.deepEqual(mineParams.decode({ blocks: 3 }), { blocks: 3n, timestamp: undefined });
    assert.deepEqual(mineParams.decode({ blocks: '0x2', timestamp: '0x10' }), { blocks: 2n, timestamp: 16n });
    assert.throws(() => decodeParams([{ block: 1 }], [mineParams]), InvalidParamsError);
  });
  it('storage values are words of at most 32 bytes, left-padded', () => {
    assert.equal(Buffer.from(word32.decode('0x2a')).toString('hex'), '00'.repeat(31) + '2a');
    assert.throws(() => word32.decode('0x' + '11'.repeat(33)), /at most 32 bytes/);
  });
});

describe('dev toolkit registration', () => {
  it('without the toolkit the methods answer -32601', async () => {
    const table = buildMethodTable({ ...devNamespaces }, ['eth']);
    const d = createDispatcher({} as RpcContext, table);
    await assert.rejects(async () => d.call('evm_snapshot', [], { authorized: false } as never), MethodNotFoundError);
    await assert.rejects(
      async () => d.call('hardhat_getAutomine', [], { authorized: false } as never),
      MethodNotFoundError,
    );
  });
  it('both prefixes exist where Anvil and Hardhat both have the method', () => {
    const names = new Set([...devNamespaces.anvil, ...devNamespaces.hardhat, ...devNamespaces.evm].map((m) => m.name));
    for (const m of [
      'setBalance',
      'setCode',
      'setNonce',
      'setStorageAt',
      'impersonateAccount',
      'stopImpersonatingAccount',
      'mine',
      'getAutomine',
      'dropTransaction',
    ]) {
      assert.ok(names.has(`anvil_${m}`) && names.has(`hardhat_${m}`), m);
    }
    for (const m of [
      'evm_mine',
      'evm_snapshot',
      'evm_revert',
      'evm_increaseTime',
      'evm_setNextBlockTimestamp',
      'evm_setAutomine',
      'evm_setIntervalMining',
      'anvil_nodeInfo',
      'hardhat_metadata',
    ]) {
      assert.ok(names.has(m), m);
    }
  });
});
