// eth_config's view of each fork (EIP-7910): precompile names and blob schedules, and the blob fee rules.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blobScheduleOf, currentFork, nextBlobBaseFee, precompileNames } from './forkConfig.ts';

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');

describe('forkConfig', () => {
  test('precompiles: Cancun 10, Prague 17, Osaka 18 with P256VERIFY at 0x100', () => {
    assert.equal(precompileNames('Cancun').length, 10);
    assert.equal(precompileNames('Prague').length, 17);
    const osaka = Object.fromEntries(precompileNames('Osaka').map(([n, a]) => [n, hex(a)]));
    assert.equal(Object.keys(osaka).length, 18);
    assert.equal(osaka.P256VERIFY, '0x0000000000000000000000000000000000000100');
    assert.equal(osaka.BLS12_MAP_FP2_TO_G2, '0x0000000000000000000000000000000000000011');
  });

  test('blob schedules: Cancun 3/6/3338477; Prague and Osaka 6/9/5007716', () => {
    assert.deepEqual(blobScheduleOf('Cancun'), { target: 3, max: 6, baseFeeUpdateFraction: 3338477n });
    assert.deepEqual(blobScheduleOf('Prague'), { target: 6, max: 9, baseFeeUpdateFraction: 5007716n });
    assert.deepEqual(blobScheduleOf('Osaka'), blobScheduleOf('Prague'));
    const f = currentFork(9000n, new Uint8Array(32), 'Osaka');
    assert.deepEqual(f.blobSchedule, blobScheduleOf('Osaka'));
    assert.equal(f.activationTime, 0n);
    assert.deepEqual(
      f.systemContracts.map(([n, a]) => [n, hex(a)]),
      [['HISTORY_STORAGE_ADDRESS', '0x0000f90827f1c53a10cb7a02335b175320002935']],
    );
    assert.deepEqual(currentFork(9000n, new Uint8Array(32), 'Cancun').systemContracts, []);
  });

  test("a chain without blobs keeps a 1-wei blob base fee on every fork, EIP-7918's reserve included", () => {
    for (const fork of ['Cancun', 'Prague', 'Osaka'] as const) {
      assert.equal(nextBlobBaseFee({ excessBlobGas: 0n, blobGasUsed: 0n, baseFee: 10n ** 15n }, fork), 1n);
    }
  });
});
