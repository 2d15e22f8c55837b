import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutputCapExceeded, TraceAbort } from './errors.ts';
import { OutputBudget } from './structLogger.ts';

test('a request over its output budget fails with OutputCapExceeded, a TraceAbort that block traces do not absorb', () => {
  const budget = new OutputBudget(2 * 1048576);
  budget.charge(2 * 1048576);
  assert.throws(
    () => budget.charge(1),
    (e: unknown) =>
      e instanceof OutputCapExceeded && e instanceof TraceAbort && /^trace output exceeds 2 MiB/.test(e.message),
  );
  // 0 means no cap.
  new OutputBudget(0).charge(Number.MAX_SAFE_INTEGER);
});
