import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type PreAccount, SENDER, traceOnEngine, traceOnEthereumjs } from '../../test/helpers/traceOracle.ts';
import { initEngine } from '../evm/index.ts';
import { OutputBudget, StructLogger } from './structLogger.ts';
import type { StructTrace } from './types.ts';

const A = new Uint8Array(20).fill(0xaa);
const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

// A: MSTORE at 0x40 (memory grows to 0x60), SSTORE, CALL B with value 1 (B reverts with a word), RETURNDATACOPY,
// LOG1, then `last` (an opcode that fails, or STOP).
const codeA = (last: string) =>
  hex(`
  6020 6040 52
  6001 6000 55
  6000 6000 6000 6000 6001 73${'bb'.repeat(20)} 5a f1 50
  6020 6000 6080 3e
  60aa 6020 6000 a1
  ${last}`);
// B: MSTORE 5 at 0, REVERT with that word.
const CODE_B = hex('6005 6000 52 6020 6000 fd');

const pre = (codeOfA: Uint8Array): PreAccount[] => [
  { address: SENDER, balance: 10n ** 18n, nonce: 3n },
  { address: A, balance: 10n, code: codeOfA },
  { address: new Uint8Array(20).fill(0xbb), code: CODE_B },
];

/** Struct logs of one transaction to A (200,000 gas after the intrinsic 21,000), on the engine or on ethereumjs. */
async function structLogs(codeOfA: Uint8Array, onEngine: boolean): Promise<StructTrace> {
  const logger = new StructLogger(
    { disableStack: false, disableStorage: false, enableMemory: true, enableReturnData: true, limit: 0 },
    new OutputBudget(0),
  );
  const s = { name: '', to: A, data: new Uint8Array(0), gas: 221_000n };
  const out = onEngine ? traceOnEngine(pre(codeOfA), s, logger) : await traceOnEthereumjs(pre(codeOfA), s, logger);
  assert.equal(out.kind, 'struct');
  return out.value as StructTrace;
}

describe('TraceDriver on the engine', () => {
  before(() => initEngine());

  it('gives the same struct logs as ethereumjs (stack, memory, return data, gas, refund, errors)', async () => {
    for (const last of ['00', 'fe', '6000 6000 fd', '5b 6000 56']) {
      const viaEthereumjs = await structLogs(codeA(last), false);
      const viaEngine = await structLogs(codeA(last), true);
      assert.ok(viaEngine.structLogs.length > 20);
      assert.deepEqual(viaEngine, viaEthereumjs, `ending ${last}`);
    }
  });

  it('sees memory as it was before the opcode expanded it, and the real byte of an undefined opcode', async () => {
    const t = await structLogs(codeA('0c'), true);
    const mstore = t.structLogs[2]!;
    assert.equal(mstore.op, 'MSTORE');
    assert.equal(mstore.memory!.length, 0);
    assert.equal(t.structLogs[3]!.memory!.length, 0x60);
    const call = t.structLogs.find((l) => l.op === 'CALL')!;
    assert.equal(call.depth, 1);
    assert.ok(t.structLogs.some((l) => l.depth === 2 && l.op === 'REVERT'));
    const last = t.structLogs.at(-1)!;
    assert.equal(last.error, 'invalid opcode: opcode 0xc not defined');
  });
});
