// Stateful precompiles: writes and logs are journaled with the calling transaction, the call's kind reaches the
// precompile, a revert returns its data and unused gas, and the address is warm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeTransaction, initEngine, precompilesFor, WorldState } from './index.ts';
import type { Address, Precompile, PrecompileCall, StatefulPrecompile, Tx } from './types.ts';
import { hexToBytes } from '../primitives/bytes.ts';
import { MemReader } from './testing/mem-reader.testing.ts';
import { testBlock, testTx } from './testing/engine-inputs.testing.ts';

await initEngine();

const SENDER = 0x1000n;
const CONTRACT = 0x2000n;
const COUNTER = 0x0800n;
const block = testBlock({ baseFee: 0n });

function tx(to: Address, data = ''): Tx {
  return testTx({ type: 0, from: SENDER, to, data: hexToBytes(data), maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
}

/** Increments slot 0 and logs the caller; input 0x01 reverts with 'no', a DELEGATECALL fails. */
function counter(seen: PrecompileCall[]): StatefulPrecompile {
  return {
    stateful: true,
    call(c) {
      seen.push(c);
      if (c.kind === 'DELEGATECALL') return { status: 'failure' };
      if (c.input[0] === 1) return { status: 'revert', output: new TextEncoder().encode('no'), gasUsed: 1000n };
      c.host.setStorage(COUNTER, 0n, c.host.storage(COUNTER, 0n) + 1n);
      c.host.log(COUNTER, [c.caller], new Uint8Array(0));
      return { status: 'success', output: new Uint8Array([7]), gasUsed: 5000n };
    },
  };
}

function table(seen: PrecompileCall[]): Map<Address, Precompile> {
  const t = new Map<Address, Precompile>(precompilesFor('Prague'));
  t.set(COUNTER, counter(seen));
  return t;
}

const opts = { fork: 'Prague' as const, rules: { burnBaseFee: false } };

test('a direct call writes, logs and charges the reported gas; the account survives EIP-161', () => {
  const seen: PrecompileCall[] = [];
  const w = new WorldState(new MemReader().set(SENDER, { balance: 10n ** 18n }));
  const out = executeTransaction(w, block, tx(COUNTER), { ...opts, precompiles: table(seen) });
  assert.ok(out.ok && out.result.status === 'success');
  assert.equal(out.result.gasUsed, 21_000n + 5000n);
  assert.deepEqual(out.result.output, new Uint8Array([7]));
  assert.equal(out.result.logs.length, 1);
  assert.equal(seen[0]!.kind, 'CALL');
  assert.equal(seen[0]!.caller, SENDER);
  const d = w.diff().find((a) => a.address === COUNTER)!;
  assert.equal(d.deleted, false);
  assert.equal(d.storage.get(0n), 1n);
});

test('a revert after the precompile call leaves no trace; a revert from it returns its data', () => {
  // CALL 0x0800 with no input, then REVERT(0,0).
  const callThenRevert = '6000600060006000600061080062fffffff1' + '50' + '60006000fd';
  const seen: PrecompileCall[] = [];
  const reader = new MemReader()
    .set(SENDER, { balance: 10n ** 18n })
    .set(CONTRACT, { code: hexToBytes(callThenRevert) });
  const w = new WorldState(reader);
  const out = executeTransaction(w, block, tx(CONTRACT), { ...opts, precompiles: table(seen) });
  assert.ok(out.ok && out.result.status === 'revert');
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.caller, CONTRACT);
  assert.equal(
    w
      .diff()
      .find((a) => a.address === COUNTER)
      ?.storage.get(0n),
    undefined,
  );

  const w2 = new WorldState(new MemReader().set(SENDER, { balance: 10n ** 18n }));
  const r = executeTransaction(w2, block, tx(COUNTER, '01'), { ...opts, precompiles: table([]) });
  assert.ok(r.ok && r.result.status === 'revert');
  assert.equal(new TextDecoder().decode(r.result.output), 'no');
  assert.equal(r.result.gasUsed, 21_000n + 16n + 1000n);
});

test('DELEGATECALL reaches the precompile with its kind; the address is warm', () => {
  // DELEGATECALL 0x0800 (gas 0xffff), store the success flag + 1 in slot 0.
  const delegate = '600060006000600061080061fffff4' + '600101' + '600055' + '00';
  const seen: PrecompileCall[] = [];
  const reader = new MemReader().set(SENDER, { balance: 10n ** 18n }).set(CONTRACT, { code: hexToBytes(delegate) });
  const w = new WorldState(reader);
  const out = executeTransaction(w, block, tx(CONTRACT), { ...opts, precompiles: table(seen) });
  assert.ok(out.ok && out.result.status === 'success');
  assert.equal(seen[0]!.kind, 'DELEGATECALL');
  assert.equal(seen[0]!.address, CONTRACT);
  assert.equal(
    w
      .diff()
      .find((a) => a.address === CONTRACT)
      ?.storage.get(0n),
    1n,
    'the DELEGATECALL failed',
  );
  assert.equal(w.isWarm(w.account(COUNTER)), true);
  assert.equal(w.isWarm(w.account(0x0900n)), false);
});
