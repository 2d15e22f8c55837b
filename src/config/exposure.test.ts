import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exposureWarnings, isLoopbackHost } from './exposure.ts';

const base = {
  enable: true,
  address: '127.0.0.1:8545',
  wsAddress: '127.0.0.1:8546',
  api: ['eth', 'personal', 'miner'],
};

describe('exposureWarnings', () => {
  test('loopback addresses never warn', () => {
    assert.deepEqual(exposureWarnings(base), []);
    assert.deepEqual(exposureWarnings({ ...base, address: 'localhost:1', wsAddress: '[::1]:2' }), []);
    assert.deepEqual(exposureWarnings({ ...base, address: '127.8.9.10:1' }), []);
  });

  test('a non-loopback HTTP or WS address with personal/miner enabled warns, naming the address and namespaces', () => {
    const http = exposureWarnings({ ...base, address: '0.0.0.0:8545' });
    assert.equal(http.length, 1);
    assert.match(
      http[0]!,
      /^warning: JSON-RPC HTTP listens on 0\.0\.0\.0:8545 \(not loopback\) with the private namespaces personal, miner enabled/,
    );
    const ws = exposureWarnings({ ...base, wsAddress: '[::]:8546', api: ['eth', 'miner'] });
    assert.equal(ws.length, 1);
    assert.match(ws[0]!, /WebSocket listens on \[::\]:8546 .*namespaces miner enabled/);
    assert.equal(exposureWarnings({ ...base, address: '192.168.1.5:8545', wsAddress: '10.0.0.1:8546' }).length, 2);
  });

  test('no warning without private namespaces, or with JSON-RPC disabled', () => {
    assert.deepEqual(exposureWarnings({ ...base, address: '0.0.0.0:8545', api: ['eth', 'net', 'web3'] }), []);
    assert.deepEqual(exposureWarnings({ ...base, address: '0.0.0.0:8545', enable: false }), []);
  });

  test('isLoopbackHost', () => {
    for (const h of ['127.0.0.1', '127.255.0.1', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])
      assert.equal(isLoopbackHost(h), true, h);
    for (const h of ['0.0.0.0', '::', '', '10.0.0.1', 'example.com', '128.0.0.1', 'localhost.evil.com'])
      assert.equal(isLoopbackHost(h), false, h);
  });
});
