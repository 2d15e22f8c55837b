import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReceiptRecord } from '../../store/records.ts';
import { firstLogIndex, firstLogIndexes } from './receipt.ts';

test('firstLogIndex counts the logs of the receipts before the index, as firstLogIndexes does for all', () => {
  const logCounts = [0, 3, 1, 0, 0, 5, 2];
  const receipts = logCounts.map((n) => ({ logs: new Array<unknown>(n).fill({}) }) as unknown as ReceiptRecord);
  const all = firstLogIndexes(receipts);
  assert.deepEqual(all, [0, 0, 3, 4, 4, 4, 9]);
  receipts.forEach((_, i) => assert.equal(firstLogIndex(receipts, i), all[i]));
});
