import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Bloom } from '@ethereumjs/vm';
import { bloomBitsOf, logsBloom, setBloomBits } from './bloom.ts';

test('logsBloom sets the bits ethereumjs sets for the same addresses and topics', () => {
  const logs = [
    { address: new Uint8Array(20).fill(0x11), topics: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)] },
    { address: new Uint8Array(20).fill(0x22), topics: [] },
  ];
  const expected = new Bloom();
  for (const l of logs) {
    expected.add(l.address);
    for (const t of l.topics) expected.add(t);
  }
  assert.deepEqual(logsBloom(logs), expected.bitvector);
  assert.deepEqual(logsBloom([]), new Uint8Array(256));
});

test('setBloomBits sets exactly the three bits bloomBitsOf packs', () => {
  const value = new Uint8Array(32).fill(7);
  const bloom = new Uint8Array(256);
  setBloomBits(bloom, bloomBitsOf(value));
  const expected = new Bloom();
  expected.add(value);
  assert.deepEqual(bloom, expected.bitvector);
  const set = bloom.reduce((n, b) => n + b.toString(2).split('1').length - 1, 0);
  assert.ok(set >= 1 && set <= 3);
});
