// The engine's hooks for the app's call paths: the cooperative deadline, a replaced precompile table (state
// overrides that move precompiles) and the access log eth_createAccessList reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExecutionAborted, executeTransaction, initEngine, precompilesFor, WorldState } from './index.ts';
import type { AccessLog, Address, Precompile, Tx } from './types.ts';
import { hexToBytes } from '../primitives/bytes.ts';
import { MemReader } from './testing/mem-reader.testing.ts';
import { testBlock, testTx } from './testing/engine-inputs.testing.ts';

await initEngine();

const SENDER = 0x1000n;
const CONTRACT = 0x2000n;
const block = testBlock({ baseFee: 0n });

function call(data: string, to: Address | undefined = CONTRACT, gasLimit = 100_000_000n): Tx {
  const fees = { gasPrice: 0n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n };
  return testTx({ type: 0, from: SENDER, to, gasLimit, data: hexToBytes(data), ...fees });
}

const opts = { fork: 'Prague' as const, rules: { burnBaseFee: false }, isCall: true };
// JUMPDEST; PUSH1 0; JUMP — loops until its gas runs out.
const ENDLESS = '5b600056';

test('a passed deadline aborts an endless loop; an unset or distant one changes nothing', () => {
  const code = hexToBytes(ENDLESS);
  const reader = new MemReader().set(CONTRACT, { code });
  const t0 = Date.now();
  assert.throws(
    () => executeTransaction(new WorldState(reader), block, call(''), { ...opts, deadline: Date.now() + 50 }),
    ExecutionAborted,
  );
  const elapsed = Date.now() - t0;
  assert.ok(elapsed >= 50 && elapsed < 1000, `aborted after ${elapsed} ms`);
  const unbounded = executeTransaction(new WorldState(reader), block, call('', CONTRACT, 1_000_000n), opts);
  const distant = executeTransaction(new WorldState(reader), block, call('', CONTRACT, 1_000_000n), {
    ...opts,
    deadline: Date.now() + 60_000,
  });
  assert.deepEqual(distant, unbounded);
  assert.ok(unbounded.ok && unbounded.result.status === 'out_of_gas');
});

test('a passed deadline aborts at the next frame entry (straight-line code has no jump to check at)', () => {
  // CALL to itself with all gas: the child frame's entry reads the clock.
  const selfCall = '6000600060006000600030' + '5af1' + '00';
  const reader = new MemReader().set(CONTRACT, { code: hexToBytes(selfCall) });
  assert.throws(
    () => executeTransaction(new WorldState(reader), block, call(''), { ...opts, deadline: Date.now() - 1 }),
    ExecutionAborted,
  );
});

test('a replaced precompile table moves a precompile; warmth stays the fork’s', () => {
  const moved = 0x1234n;
  const table = new Map<Address, Precompile>(precompilesFor('Prague'));
  table.set(moved, table.get(4n)!); // the identity precompile
  table.delete(4n);
  const reader = new MemReader();
  const at = (to: Address, p?: ReadonlyMap<Address, Precompile>) =>
    executeTransaction(new WorldState(reader), block, call('abcd', to), p ? { ...opts, precompiles: p } : opts);
  const there = at(moved, table);
  assert.ok(there.ok);
  assert.deepEqual(there.result.output, hexToBytes('abcd'));
  const gone = at(4n, table);
  assert.ok(gone.ok);
  assert.deepEqual(gone.result.output, new Uint8Array(0));
  const before = at(4n);
  assert.ok(before.ok && before.result.output.length === 2);
});

test('the access log keeps what reverted frames warmed', () => {
  // Inner contract: SLOAD slot 5, then REVERT. Outer: BALANCE(0xbeef), CALL inner, STOP.
  const INNER = 0x3000n;
  const inner = '600554' + '60006000fd';
  const outer = '61beef3150' + '600060006000600060006130005af150' + '00';
  const reader = new MemReader().set(CONTRACT, { code: hexToBytes(outer) }).set(INNER, { code: hexToBytes(inner) });
  const w = new WorldState(reader);
  const log: AccessLog = { touched: new Map() };
  w.accessLog = log;
  const out = executeTransaction(w, block, call(''), opts);
  assert.ok(out.ok && out.result.status === 'success');
  assert.deepEqual(log.touched.get(INNER), new Set([5n]));
  assert.deepEqual(log.touched.get(0xbeefn), new Set());
  assert.equal(log.touched.has(4n), false, 'precompiles are warm, never logged');
});
