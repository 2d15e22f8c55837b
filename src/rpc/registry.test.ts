import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MethodNotFoundError, UnauthorizedError } from '../errors/index.ts';
import type { RpcContext } from './context.ts';
import { defineMethod } from './method.ts';
import { buildMethodTable, createDispatcher } from './registry.ts';

const method = (name: string) => defineMethod({ name, params: [], handler: () => name });

describe('dispatcher', () => {
  const table = buildMethodTable(
    { eth: [method('eth_x')], personal: [method('personal_x')], miner: [method('miner_x')] },
    ['eth', 'personal', 'miner'],
  );
  const d = createDispatcher({} as RpcContext, table);
  const open = { transport: 'http' as const, authorized: false };
  const authorized = { transport: 'http' as const, authorized: true };

  it('runs private-namespace methods only for an authorized caller, public ones for anyone', () => {
    assert.equal(d.call('eth_x', [], open), 'eth_x');
    assert.equal(d.call('eth_x', [], authorized), 'eth_x');
    for (const name of ['personal_x', 'miner_x']) {
      assert.throws(() => d.call(name, [], open), UnauthorizedError);
      assert.equal(d.call(name, [], authorized), name);
    }
  });

  it('answers an unknown method as not found, whether or not its namespace is private', () => {
    assert.throws(() => d.call('personal_unknown', [], open), MethodNotFoundError);
    assert.throws(() => d.call('eth_unknown', [], authorized), MethodNotFoundError);
  });
});
