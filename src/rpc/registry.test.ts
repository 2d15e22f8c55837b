import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MethodNotFoundError, UnauthorizedError } from '../errors/index.ts';
import type { RpcContext } from './context.ts';
import { defineMethod } from './method.ts';
import { address } from './params/data.ts';
import { buildMethodTable, createDispatcher } from './registry.ts';
import { PlainString } from './server/jsonrpc.ts';

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

  it('checks the caller on every call of a method, the same method twice in a row too', () => {
    assert.equal(d.call('personal_x', [], authorized), 'personal_x');
    assert.throws(() => d.call('personal_x', [], open), UnauthorizedError);
    assert.throws(() => d.call('personal_x', [], open), UnauthorizedError);
    assert.equal(d.call('personal_x', [], authorized), 'personal_x');
    assert.throws(() => d.call('', [], open), MethodNotFoundError);
    assert.throws(() => d.call('eth_y', [], open), MethodNotFoundError);
    assert.throws(() => d.call('eth_y', [], open), MethodNotFoundError);
    assert.equal(d.call('eth_x', [], open), 'eth_x');
  });

  it('answers an unknown method as not found, whether or not its namespace is private', () => {
    assert.throws(() => d.call('personal_unknown', [], open), MethodNotFoundError);
    assert.throws(() => d.call('eth_unknown', [], authorized), MethodNotFoundError);
  });
});

describe('a private method open to some params (personal_sign for the --dev accounts)', () => {
  const opened = defineMethod({
    name: 'personal_open',
    params: [address],
    handler: () => 'signed',
    openTo: (ctx: RpcContext, [addr]) => ctx.isDevAccount(addr),
  });
  const dev = '0x' + '11'.repeat(20);
  const other = '0x' + '22'.repeat(20);
  const table = buildMethodTable({ personal: [opened, method('personal_x')] }, ['personal']);
  const devMode = createDispatcher({ isDevAccount: (a) => a[0] === 0x11 } as RpcContext, table);
  const plainMode = createDispatcher({ isDevAccount: (_a: Uint8Array) => false } as RpcContext, table);
  const open = { transport: 'http' as const, authorized: false };
  const authorized = { transport: 'http' as const, authorized: true };

  it('runs without the token only for the params it opens to; the rest of the namespace stays closed', () => {
    assert.equal(devMode.call('personal_open', [dev], open), 'signed');
    assert.throws(() => devMode.call('personal_open', [other], open), UnauthorizedError);
    assert.throws(() => devMode.call('personal_x', [], open), UnauthorizedError);
    assert.equal(devMode.call('personal_open', [other], authorized), 'signed');
  });

  it('refuses undecodable params without the token as unauthorized (not as invalid params)', () => {
    for (const params of [[], ['0x12'], [dev, 'extra', 'more']])
      assert.throws(() => devMode.call('personal_open', params, open), UnauthorizedError, JSON.stringify(params));
  });

  it('opens to nobody outside dev mode', () => {
    assert.throws(() => plainMode.call('personal_open', [dev], open), UnauthorizedError);
    assert.equal(plainMode.call('personal_open', [dev], authorized), 'signed');
  });
});

describe('hexResult methods', () => {
  const hex = (name: string, answer: () => unknown) =>
    defineMethod({ name, params: [], hexResult: true, handler: answer });
  const table = buildMethodTable(
    {
      eth: [
        hex('eth_now', () => '0x2a'),
        hex('eth_later', async () => '0x2b'),
        hex('eth_none', () => null),
        defineMethod({ name: 'eth_text', params: [], handler: () => '0x2c' }),
      ],
    },
    ['eth'],
  );
  const d = createDispatcher({} as RpcContext, table);
  const meta = { transport: 'http' as const, authorized: false };

  it('marks a string answered at once as plain text, and leaves promises, non-strings and other methods as they are', async () => {
    const now = d.call('eth_now', [], meta);
    assert.ok(now instanceof PlainString);
    assert.equal(now.text, '0x2a');
    const later = d.call('eth_later', [], meta);
    assert.ok(later instanceof Promise);
    assert.equal(await later, '0x2b');
    assert.equal(d.call('eth_none', [], meta), null);
    assert.equal(d.call('eth_text', [], meta), '0x2c');
  });
});
