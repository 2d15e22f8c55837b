import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverrideError } from '../../errors/index.ts';
import { movePrecompiles } from '../../../test/helpers/ethereumjsOverrides.ts';
import { planOverrides } from './overrides.ts';

const addr = (n: number) => {
  const a = new Uint8Array(20);
  a[19] = n;
  return a;
};
const failure = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof OverrideError);
    return `${e.reason}: ${e.message}`;
  }
  return 'no error';
};
const PRECOMPILES = [addr(1), addr(2)];

describe('state override plan', () => {
  it('moves a precompile and removes an overridden one', () => {
    const plan = planOverrides(
      [
        { address: addr(1), movePrecompileTo: addr(9) },
        { address: addr(2), code: Uint8Array.of(0) },
      ],
      PRECOMPILES,
    );
    assert.deepEqual(plan.precompiles, [{ from: addr(1), to: addr(9) }, { from: addr(2) }]);
    const table = new Map<string, unknown>([
      ['0000000000000000000000000000000000000001', 'ecrecover'],
      ['0000000000000000000000000000000000000002', 'sha256'],
    ]);
    movePrecompiles(table, plan.precompiles);
    assert.deepEqual([...table], [['0000000000000000000000000000000000000009', 'ecrecover']]);
  });

  it("refuses what geth refuses, in geth's words", () => {
    assert.equal(
      failure(() => planOverrides([{ address: addr(5), movePrecompileTo: addr(9) }], PRECOMPILES)),
      'NOT_PRECOMPILE: account 0x0000000000000000000000000000000000000005 is not a precompile',
    );
    assert.equal(
      failure(() =>
        planOverrides(
          [
            { address: addr(1), movePrecompileTo: addr(9) },
            { address: addr(9), balance: 1n },
          ],
          PRECOMPILES,
        ),
      ),
      'MOVE_TARGET_OVERRIDDEN: account 0x0000000000000000000000000000000000000009 is already overridden',
    );
    assert.equal(
      failure(() => planOverrides([{ address: addr(3), state: [], stateDiff: [] }], PRECOMPILES)),
      "STATE_AND_STATE_DIFF: account 0x0000000000000000000000000000000000000003 has both 'state' and 'stateDiff'",
    );
  });
});
