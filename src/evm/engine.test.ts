// Unit tests for what the state tests reach poorly: the analysis cache, memory guards, the tracer hook's
// cost-free path, deep call stacks without JS recursion, journal snapshots, and the fee policy hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeTransaction, initEngine, WorldState } from './index.ts';
import type { StepView, Tx } from './types.ts';
import { analysisCache, analyze } from './interpreter/analysis.ts';
import { memoryGas } from './interpreter/memory.ts';
import { hexToBytes } from '../primitives/bytes.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { MemReader } from './testing/mem-reader.testing.ts';
import { testBlock, testTx } from './testing/engine-inputs.testing.ts';

await initEngine();

const SENDER = 0x1000n;
const CONTRACT = 0x2000n;
const COINBASE = 0xc0ffeen;
const block = testBlock({ number: 10n, timestamp: 1000n, coinbase: COINBASE, gasLimit: 30_000_000n });

function tx(over: Partial<Tx>): Tx {
  return testTx({ from: SENDER, to: CONTRACT, maxPriorityFeePerGas: 2n, ...over });
}

function world(code: string, balance = 10n ** 18n): WorldState {
  const r = new MemReader().set(SENDER, { balance }).set(CONTRACT, { code: hexToBytes(code) });
  return new WorldState(r);
}

function run(code: string, over: Partial<Tx> = {}, burn = true) {
  const w = world(code);
  const out = executeTransaction(w, block, tx(over), { fork: 'Prague', rules: { burnBaseFee: burn } });
  assert.ok(out.ok);
  return { w, r: out.result };
}

test('analysis: a 0x5b inside PUSH data is no jump destination', () => {
  const a = analyze(hexToBytes('615b5b5b')); // PUSH2 0x5b5b, JUMPDEST
  assert.deepEqual([...a.jumpdests], [0, 0, 0, 1]);
  // JUMP to 1 (inside the PUSH data) fails; to 3 works.
  assert.equal(run('6001565b').r.status, 'bad_jump');
  assert.equal(run('6003565b00').r.status, 'success');
});

test('analysis cache: one analysis per code hash, shared across WorldStates', () => {
  const code = hexToBytes('60016002015b00');
  const h = keccak256(code);
  const a1 = analysisCache.get(h, code);
  const a2 = analysisCache.get(h, code);
  assert.equal(a1, a2);
  run('60016002015b00');
  assert.equal(analysisCache.get(h, code), a1);
});

test('memory gas is exact up to the 2^32-byte limit', () => {
  for (const w of [0, 1, 511, 512, 513, 1 << 20, 2 ** 27 - 1, 2 ** 27]) {
    const exact = 3n * BigInt(w) + (BigInt(w) * BigInt(w)) / 512n;
    assert.equal(BigInt(memoryGas(w)), exact, `words ${w}`);
  }
});

test('memory guard: a huge offset is out of gas before any allocation', () => {
  // MLOAD at 2^32, at 2^255, MSTORE at 2^64, RETURN of 2^40 bytes: all out of gas, all gas consumed.
  for (const code of [
    '640100000000' + '5100',
    '7f8' + '0'.repeat(63) + '5100',
    '6001680100000000000000005200',
    '6501000000000060' + '00f3',
  ]) {
    const { r } = run(code);
    assert.equal(r.status, 'out_of_gas', code);
    assert.equal(r.gasUsed, 1_000_000n);
  }
  // A zero-size range never expands memory, whatever its offset.
  assert.equal(run('60007f' + 'f'.repeat(64) + 'f3').r.status, 'success');
});

test('tracer: steps see every opcode with pc, gas and stack; results equal the untraced run', () => {
  const code = '600160020160005500';
  const plain = run(code).r;
  const w = world(code);
  const steps: Array<[number, number, number, readonly bigint[]]> = [];
  const out = executeTransaction(w, block, tx({}), {
    fork: 'Prague',
    rules: { burnBaseFee: true },
    tracer: { step: (s: StepView) => steps.push([s.pc, s.op, s.gas, s.stack()]) },
  });
  assert.ok(out.ok);
  assert.equal(out.result.gasUsed, plain.gasUsed);
  assert.deepEqual(
    steps.map((s) => s[0]),
    [0, 2, 4, 5, 7, 8],
  );
  assert.deepEqual(steps[3]![3], [3n]);
  assert.equal(steps[0]![2] - steps[1]![2], 3);
});

test('deep recursion: 1025 nested frames without exhausting the JS stack, gas beyond 2^53 exact', () => {
  // Each frame calls itself with all gas (depth in calldata) until the depth limit makes CALL return 0, then
  // stores 1 at its depth. A 2^60 gas limit leaves every depth enough gas and runs the gas-above-2^53 path.
  // CALLDATALOAD(0)+1 -> mem[0]; CALL(GAS, self, 0, 0, 32, 0, 0); POP; SSTORE(calldata, 1)
  const code = '6000356001016000526000600060206000600030' + '5af1' + '50' + '60016000355500';
  const w = new WorldState(
    new MemReader().set(SENDER, { balance: 1n << 70n }).set(CONTRACT, { code: hexToBytes(code) }),
  );
  const big = { ...block, gasLimit: 1n << 62n };
  const out = executeTransaction(w, big, tx({ gasLimit: 1n << 60n }), { fork: 'Prague', rules: { burnBaseFee: true } });
  assert.ok(out.ok);
  assert.equal(out.result.status, 'success');
  const d = w.diff().find((x) => x.address === CONTRACT)!;
  assert.equal(d.storage.size, 1025);
  assert.ok(out.result.gasUsed < 1n << 40n);
});

test('snapshot/revertTo undoes a whole transaction', () => {
  const w = world('6001600055');
  const snap = w.snapshot();
  const out = executeTransaction(w, block, tx({}), { fork: 'Prague', rules: { burnBaseFee: true } });
  assert.ok(out.ok);
  assert.ok(w.diff().some((d) => d.storage.size > 0));
  w.revertTo(snap);
  for (const d of w.diff()) {
    assert.equal(d.storage.size, 0);
    if (d.address === SENDER) assert.equal(d.nonce, 0n);
  }
});

test('fee policy: burnBaseFee false pays the whole effective fee to the coinbase', () => {
  const burn = run('00', {}, true);
  const keep = run('00', {}, false);
  const cb = (w: WorldState) => w.diff().find((d) => d.address === COINBASE)?.balance ?? 0n;
  assert.equal(burn.r.gasUsed, 21000n);
  assert.equal(cb(burn.w), 21000n * 2n);
  assert.equal(cb(keep.w), 21000n * 9n);
});

test('invalid tx leaves the state untouched', () => {
  const w = world('00', 1000n);
  const out = executeTransaction(w, block, tx({}), { fork: 'Prague', rules: { burnBaseFee: true } });
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.reason, 'INSUFFICIENT_FUNDS');
  assert.equal(w.diff().length, 0);
});

test('tracer: cost includes memory expansion and SSTORE pricing; fault reports the failing opcode', () => {
  // PUSH1 1, PUSH1 0, MSTORE (3 + 3 expansion), PUSH1 1, PUSH1 0, SSTORE (cold new slot 22100), undefined 0x0f
  const w = world('600160005260016000550f');
  const costs = new Map<number, number>();
  const faults: Array<[number, string]> = [];
  const out = executeTransaction(w, block, tx({}), {
    fork: 'Prague',
    rules: { burnBaseFee: true },
    tracer: { step: (s) => costs.set(s.op, s.cost), fault: (s, status) => faults.push([s.op, status]) },
  });
  assert.ok(out.ok);
  assert.equal(costs.get(0x52), 6);
  assert.equal(costs.get(0x55), 22100);
  assert.deepEqual(faults, [[0x0f, 'invalid_opcode']]);
});
