// BoundedMemo: hits return what was set, the size never passes the bound, and a full memo starts over.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedMemo } from './boundedMemo.ts';

describe('BoundedMemo', () => {
  it('returns what was set, falsy values included, and undefined for a miss', () => {
    const memo = new BoundedMemo<string, number | boolean>(4);
    assert.equal(memo.set('a', 0), 0);
    assert.equal(memo.set('b', false), false);
    assert.equal(memo.get('a'), 0);
    assert.equal(memo.get('b'), false);
    assert.equal(memo.get('c'), undefined);
  });

  it('never holds more than its bound: the entry past it starts a new memo', () => {
    const memo = new BoundedMemo<number, number>(3);
    for (let i = 0; i < 3; i++) memo.set(i, i * 10);
    assert.equal(memo.size, 3);
    memo.set(1, 11); // full: even a key it holds starts it over
    assert.equal(memo.size, 1);
    assert.equal(memo.get(0), undefined);
    assert.equal(memo.get(1), 11);
    for (let i = 0; i < 100; i++) {
      memo.set(i, i);
      assert.ok(memo.size <= 3);
    }
  });
});
