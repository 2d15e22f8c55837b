import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallMeta } from '../rpc/server/jsonrpc.ts';
import { RpcMetrics } from './rpcMetrics.ts';

const META = { transport: 'http', authorized: false } as CallMeta;

test('instrument keeps a synchronous answer synchronous and counts every outcome', async () => {
  const m = new RpcMetrics(() => true);
  const seen: string[] = [];
  const d = m.instrument(
    {
      call: (method) => {
        if (method === 'sync') return 7;
        if (method === 'async') return Promise.resolve(8);
        if (method === 'throws') throw new Error('bad');
        return Promise.reject(new Error('rejects'));
      },
    },
    (method) => seen.push(method),
  );
  assert.equal(d.call('sync', [], META), 7);
  const later = d.call('async', [], META);
  assert.ok(later instanceof Promise);
  assert.equal(await later, 8);
  assert.throws(() => d.call('throws', [], META), /bad/);
  await assert.rejects(d.call('rejects', [], META) as Promise<unknown>, /rejects/);
  for (const name of ['sync', 'async', 'throws', 'rejects']) {
    const s = m.series(name, 'http');
    assert.equal(s.count, 1, name);
    assert.equal(s.errors, name === 'throws' || name === 'rejects' ? 1 : 0, name);
  }
  assert.deepEqual(seen, ['throws', 'rejects']);
});
