import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toYaml } from './yaml.ts';

describe('toYaml (the SDK CLI text output)', () => {
  test('balances, sorted keys, quoted numeric strings, null next_key', () => {
    const y = toYaml({
      balances: [{ denom: 'akestrel', amount: '1000000000000000000' }],
      pagination: { next_key: null, total: '0' },
    });
    assert.equal(
      y,
      'balances:\n- amount: "1000000000000000000"\n  denom: akestrel\npagination:\n  next_key: null\n  total: "0"\n',
    );
  });
  test('empty account', () => {
    assert.equal(
      toYaml({ balances: [], pagination: { next_key: null, total: '0' } }),
      'balances: []\npagination:\n  next_key: null\n  total: "0"\n',
    );
  });
  test('strings that need quotes', () => {
    assert.equal(
      toYaml({ a: '', b: 'true', c: 'x: y', d: 'ibc/ABC', e: 'c3Rha2U=' }),
      'a: ""\nb: "true"\nc: "x: y"\nd: ibc/ABC\ne: c3Rha2U=\n',
    );
  });
});
