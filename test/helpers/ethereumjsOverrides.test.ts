// The ethereumjs override surgery the simulate oracle relies on, checked against the library itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Address, hexToBytes } from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';
import { createChainCommon } from '../../src/app/evm/common.ts';
import { livePrecompiles } from './ethereumjsOverrides.ts';

const common = createChainCommon(9000n);

describe('ethereumjs override adapter (test oracle)', () => {
  it('moves a precompile through the live table while runTx keeps warming the fork set', async () => {
    const vm = await createVM({ common });
    const table = livePrecompiles(vm.evm);
    const identity = '0000000000000000000000000000000000000004';
    const moved = '00000000000000000000000000000000000000aa';
    assert.ok(table.has(identity), "the live table is the EVM's own, keyed by address hex without 0x");
    table.set(moved, table.get(identity));
    table.delete(identity);
    const call = (addr: string) =>
      vm.evm.runCall({ to: new Address(hexToBytes(`0x${addr}`)), gasLimit: 100_000n, data: Uint8Array.of(1, 2, 3) });
    // The call path finds precompiles through getPrecompile: the identity now answers at its new address only.
    assert.deepEqual((await call(moved)).execResult.returnValue, Uint8Array.of(1, 2, 3));
    assert.deepEqual((await call(identity)).execResult.returnValue, new Uint8Array(0));
    // What runTx warms (evm.precompiles) is still the fork's set.
    const warmed = (vm.evm as unknown as { precompiles: Map<string, unknown> }).precompiles;
    assert.ok(warmed.has(identity));
    assert.ok(!warmed.has(moved));
  });
});
