import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Address, createAccount } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { createChainCommon } from '../app/evm/common.ts';
import { installStepFeed } from '../app/evm/stepFeed.ts';
import { TraceDriver } from './driver.ts';
import { OutputBudget, StructLogger } from './structLogger.ts';
import type { StructTrace, TxEnv } from './types.ts';

const A = new Address(new Uint8Array(20).fill(0xaa));
const B = new Address(new Uint8Array(20).fill(0xbb));
const CALLER = new Address(new Uint8Array(20).fill(0xcc));
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

async function vmWith(codeOfA: Uint8Array): Promise<VM> {
  const vm = await createVM({ common: createChainCommon(9000n) });
  const sm = vm.stateManager;
  await sm.putAccount(CALLER, createAccount({ balance: 10n ** 18n }));
  await sm.putAccount(A, createAccount({ balance: 10n }));
  await sm.putAccount(B, createAccount({}));
  await sm.putCode(A, codeOfA);
  await sm.putCode(B, CODE_B);
  return vm;
}

const env = (): TxEnv => ({
  from: CALLER.bytes,
  to: A.bytes,
  value: 0n,
  input: new Uint8Array(0),
  gasLimit: 200_000n,
  gasPrice: 0n,
  intrinsicGas: 0n,
  blockNumber: 1n,
  timestamp: 1n,
  coinbase: new Uint8Array(20),
  state: { account: () => undefined, code: () => new Uint8Array(0), storage: () => new Uint8Array(32) },
  isPrecompile: () => false,
});

/** Struct logs of one call, through the step feed or through ethereumjs' step event. */
async function structLogs(codeOfA: Uint8Array, viaFeed: boolean): Promise<StructTrace> {
  const vm = await vmWith(codeOfA);
  const logger = new StructLogger(
    { disableStack: false, disableStorage: false, enableMemory: true, enableReturnData: true, limit: 0 },
    new OutputBudget(0),
  );
  const driver = new TraceDriver(vm.evm as never, logger, env(), 0);
  driver.attach(viaFeed ? installStepFeed(vm.evm as never) : undefined);
  try {
    const r = await vm.evm.runCall({ caller: CALLER, to: A, gasLimit: 200_000n, data: new Uint8Array(0) });
    driver.finish({
      gasUsed: r.execResult.executionGasUsed,
      failed: r.execResult.exceptionError !== undefined,
      returnValue: r.execResult.returnValue,
    });
  } finally {
    driver.detach();
  }
  const out = logger.result();
  assert.equal(out.kind, 'struct');
  return out.value as StructTrace;
}

describe('TraceDriver step feed', () => {
  it('gives the same struct logs as ethereumjs step events (stack, memory, return data, gas, refund, errors)', async () => {
    for (const last of ['00', 'fe', '6000 6000 fd', '5b 6000 56']) {
      const viaEvents = await structLogs(codeA(last), false);
      const viaFeed = await structLogs(codeA(last), true);
      assert.ok(viaFeed.structLogs.length > 20);
      assert.deepEqual(viaFeed, viaEvents, `ending ${last}`);
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
